/**
 * Bridge junk-flood benchmark (issue 20): a paid x402 v1 call's latency alone, and behind a flood of refused junk
 * `/facilitator/settle` requests (zero-value authorizations from unfunded keys, as in the audit), with the ratio.
 * The junk is sent from a worker thread (the attacker is another client, not this event loop); signing (of the
 * payment and of the junk) happens between timed phases. No assertions: figures only.
 * Run: pnpm exec tsx bench/bridge-junk-flood.ts (BENCH_ITERATIONS; BENCH_JUNK: comma-separated flood sizes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import {
  junkSettleBody,
  randomAddress,
  startTestBridge,
  startTestUpstream,
  x402V1Header,
} from "@tollgate/api/testing/bridge";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";
import { percentile, table } from "./lib";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
/** Junk settles per paid call: 6 is the audit's case (a paid call took 28 s instead of 4 s behind six). */
const FLOODS = (process.env.BENCH_JUNK ?? "6,24").split(",").map(Number);
const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-flood-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const chain = chains.chains[0]!;
const upstream = await startTestUpstream();
const bridge = await startTestBridge(chains, [
  {
    id: "acme",
    upstream_url: `${upstream.url}/api`,
    price_usdc_units: "150000",
    merchant_wallet: randomAddress(),
  },
]);
const agent = agentOn(chain, 17);

type Offer = { accepts: Record<string, unknown>[] };
const offer = async (path: string) => (await (await fetch(`${bridge.url}/acme${path}`)).json()) as Offer;

/** The attacker: a worker thread that sends every junk body it is given at once and reports the statuses. */
const attacker = new Worker(
  `const { parentPort } = require("node:worker_threads");
   parentPort.on("message", async ({ url, bodies }) => {
     const statuses = await Promise.all(bodies.map(async (body) => {
       const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
       await r.arrayBuffer();
       return r.status;
     }));
     parentPort.postMessage(statuses);
   });`,
  { eval: true },
);

async function paidCall(path: string, junk: unknown[]): Promise<{ ms: number; refused: number }> {
  const header = await x402V1Header(agent, (await offer(path)).accepts[0]);
  const done =
    junk.length > 0
      ? new Promise<number[]>((resolve) => attacker.once("message", resolve))
      : Promise.resolve<number[]>([]);
  if (junk.length > 0)
    attacker.postMessage({
      url: `${bridge.url}/facilitator/settle`,
      bodies: junk.map((b) => JSON.stringify(b)),
    });
  const t = performance.now();
  const response = await fetch(`${bridge.url}/acme${path}`, { headers: { "X-PAYMENT": header } });
  await response.arrayBuffer();
  const ms = performance.now() - t;
  if (response.status !== 200) throw new Error(`paid call answered ${response.status}`);
  const statuses = await done;
  return { ms, refused: statuses.filter((s) => s === 402).length };
}

try {
  const junkAccept = (await offer("/junk")).accepts[0]!;
  const alone: number[] = [];
  const rows: Record<string, string | number>[] = [];
  const results: { junk: number; ms: number[]; refused: number }[] = FLOODS.map((junk) => ({
    junk,
    ms: [],
    refused: 0,
  }));
  for (let i = 0; i < ITERATIONS + 3; i++) {
    const a = await paidCall(`/alone?i=${i}`, []);
    if (i >= 3) alone.push(a.ms);
    for (const result of results) {
      const junk = await Promise.all(Array.from({ length: result.junk }, () => junkSettleBody(junkAccept)));
      const f = await paidCall(`/flood?i=${i}&n=${result.junk}`, junk);
      if (i < 3) continue;
      result.ms.push(f.ms);
      result.refused += f.refused;
    }
  }
  alone.sort((x, y) => x - y);
  const p50a = percentile(alone, 50);
  rows.push({
    path: "paid call alone",
    "p50 ms": p50a,
    "p99 ms": percentile(alone, 99),
    ratio: "1.00",
    refused: "-",
  });
  for (const result of results) {
    result.ms.sort((x, y) => x - y);
    const p50 = percentile(result.ms, 50);
    rows.push({
      path: `paid call + ${result.junk} junk settles`,
      "p50 ms": p50,
      "p99 ms": percentile(result.ms, 99),
      ratio: (p50 / p50a).toFixed(2),
      refused: `${result.refused} of ${result.junk * result.ms.length}`,
    });
  }
  console.log(
    `\nPaid x402 v1 call (verify + forward + settle tx), alone and behind refused junk settles (${ITERATIONS} calls each; ratio = p50 / p50 alone)\n`,
  );
  console.log(table(rows));
} finally {
  await attacker.terminate();
  await bridge.close();
  await upstream.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
