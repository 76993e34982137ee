/**
 * Bridge junk-flood benchmark (issue 20): a paid x402 v1 call's latency alone, and behind a flood of refused junk
 * `/facilitator/settle` requests (zero-value authorizations from unfunded keys, as in the audit), with the ratio.
 * The junk is sent from a worker thread (the attacker is another client, not this event loop); signing (of the
 * payment and of the junk) happens between timed phases. No assertions: figures only.
 * Run: pnpm exec tsx bench/bridge-junk-flood.ts (BENCH_ITERATIONS, BENCH_JUNK per paid call).
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
const JUNK = Number(process.env.BENCH_JUNK ?? 24);
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
  const alone: number[] = [];
  const flooded: number[] = [];
  let refused = 0;
  const junkAccept = (await offer("/junk")).accepts[0]!;
  for (let i = 0; i < ITERATIONS + 3; i++) {
    const a = await paidCall(`/alone?i=${i}`, []);
    const junk = await Promise.all(Array.from({ length: JUNK }, () => junkSettleBody(junkAccept)));
    const f = await paidCall(`/flood?i=${i}`, junk);
    if (i < 3) continue;
    alone.push(a.ms);
    flooded.push(f.ms);
    refused += f.refused;
  }
  alone.sort((x, y) => x - y);
  flooded.sort((x, y) => x - y);
  const [p50a, p50f] = [percentile(alone, 50), percentile(flooded, 50)];
  console.log(`\nPaid x402 v1 call (verify + forward + settle tx), alone and behind ${JUNK} junk settles\n`);
  console.log(
    table([
      { path: "paid call alone", "p50 ms": p50a, "p99 ms": percentile(alone, 99), samples: alone.length },
      {
        path: `paid call + ${JUNK} junk settles`,
        "p50 ms": p50f,
        "p99 ms": percentile(flooded, 99),
        samples: flooded.length,
      },
    ]),
  );
  console.log(
    `\nratio p50 (flood / alone): ${(p50f / p50a).toFixed(2)}; junk refused: ${refused} of ${JUNK * flooded.length}`,
  );
} finally {
  await attacker.terminate();
  await bridge.close();
  await upstream.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
