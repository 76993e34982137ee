/**
 * Bridge junk-flood benchmark (docs/bridge.md "Threat model"): a paid x402 v1 call's latency alone, and behind a
 * flood of refused junk `/facilitator/settle` requests, with the ratio; then the bridge process's CPU per refused
 * junk request, against a 402 challenge (the cheapest answer the bridge gives) measured in the same run.
 * Two kinds of junk, both from fresh unfunded keys:
 * - zero: a zero-value authorization with `maxAmountRequired: "0"` (the audit's), refused by the body's own fields;
 * - unfunded: the exact price of an issued, unpaid challenge, validly signed: the dearest refusal an outsider can
 *   cause (signature recovery and the chain's balance read; the relayer bound refuses more than 4 in flight).
 * The attacker is a child process (another client, not this event loop or its CPU count); signing happens between
 * timed phases. "junk verified during call" counts junk signatures the facilitator finished checking while the paid
 * call was in flight (mean per call): the share of the flood's dearest work a payer waits behind, free of host noise.
 * No assertions: figures only, printed and written to bench/results/bridge-junk-flood.json.
 * Run: pnpm exec tsx bench/bridge-junk-flood.ts (BENCH_ITERATIONS; BENCH_JUNK: comma-separated flood sizes).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  junkSettleBody,
  randomAddress,
  startTestBridge,
  startTestUpstream,
  unfundedSettleBody,
  x402V1Header,
} from "@tollgate/api/testing/bridge";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";
import { percentile, table } from "./lib";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
/** Junk settles per paid call: 6 is the audit's case (a paid call took 28 s instead of 4 s behind six). */
const FLOODS = (process.env.BENCH_JUNK ?? "6,24").split(",").map(Number);
/** Requests per CPU measurement (sent 4 at a time: the relayer's per-client bound). */
const CPU_REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 200);
const KINDS = { zero: junkSettleBody, unfunded: unfundedSettleBody } as const;
type Kind = keyof typeof KINDS;

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

/**
 * The attacker: sends what it is given (`width` at a time, 0 = all at once) and reports each outcome: the status,
 * or for a 200 settle body whether it settled.
 */
const attacker = spawn(
  process.execPath,
  [
    "-e",
    `process.on("message", async ({ url, method, bodies, width }) => {
       const one = async (body) => {
         const r = await fetch(url, { method, headers: { "content-type": "application/json" }, body });
         const text = await r.text();
         return r.status === 200 && method === "POST" ? (JSON.parse(text).success ? "settled" : "refused") : String(r.status);
       };
       const out = [];
       const step = width || bodies.length;
       for (let i = 0; i < bodies.length; i += step) out.push(...(await Promise.all(bodies.slice(i, i + step).map(one))));
       process.send(out);
     });`,
  ],
  { stdio: ["ignore", "inherit", "inherit", "ipc"] },
);
function attack(url: string, bodies: (string | undefined)[], width = 0, method = "POST"): Promise<string[]> {
  const done = new Promise<string[]>((resolve) => attacker.once("message", (m) => resolve(m as string[])));
  attacker.send({ url, method, bodies, width });
  return done;
}
const isRefused = (outcome: string) => outcome !== "settled" && outcome !== "200";

async function junkBodies(kind: Kind, accept: Record<string, unknown>, n: number): Promise<string[]> {
  return Promise.all(Array.from({ length: n }, async () => JSON.stringify(await KINDS[kind](accept))));
}

/** Verifications the facilitator finished (the paid call's own included): a count, independent of host load. */
const verified = () => {
  const v = bridge.router.bridge.facilitatorStats.verifies;
  return v.valid + v.invalid + v.errors;
};

async function paidCall(
  path: string,
  junk: string[],
): Promise<{ ms: number; refused: number; junkVerified: number }> {
  const header = await x402V1Header(agent, (await offer(path)).accepts[0]);
  const flood = junk.length > 0 ? attack(`${bridge.url}/facilitator/settle`, junk) : Promise.resolve([]);
  const before = verified();
  const t = performance.now();
  const response = await fetch(`${bridge.url}/acme${path}`, { headers: { "X-PAYMENT": header } });
  await response.arrayBuffer();
  const ms = performance.now() - t;
  // Junk signatures recovered while the paid call was in flight (its own verification is the 1).
  const junkVerified = Math.max(0, verified() - before - 1);
  if (response.status !== 200) throw new Error(`paid call answered ${response.status}`);
  return { ms, refused: (await flood).filter(isRefused).length, junkVerified };
}

/** CPU of this process (bridge + in-process chain) per request, sent 4 at a time. */
async function cpuPerRequest(url: string, bodies: (string | undefined)[], method = "POST") {
  const before = process.cpuUsage();
  const outcomes = await attack(url, bodies, 4, method);
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000 / bodies.length, outcomes };
}

try {
  const junkAccept = (await offer("/junk")).accepts[0]!;
  const alone: number[] = [];
  const results = (Object.keys(KINDS) as Kind[]).flatMap((kind) =>
    FLOODS.map((junk) => ({ kind, junk, ms: [] as number[], refused: 0, junkVerified: 0 })),
  );
  for (let i = 0; i < ITERATIONS + 3; i++) {
    const a = await paidCall(`/alone?i=${i}`, []);
    if (i >= 3) alone.push(a.ms);
    for (const result of results) {
      const junk = await junkBodies(result.kind, junkAccept, result.junk);
      const f = await paidCall(`/flood?i=${i}&k=${result.kind}&n=${result.junk}`, junk);
      if (i < 3) continue;
      result.ms.push(f.ms);
      result.refused += f.refused;
      result.junkVerified += f.junkVerified;
    }
  }
  alone.sort((x, y) => x - y);
  const p50a = percentile(alone, 50);
  const latency: Record<string, string | number>[] = [
    {
      path: "paid call alone",
      "p50 ms": p50a,
      "p99 ms": percentile(alone, 99),
      ratio: "1.00",
      refused: "-",
      "junk verified during call": "-",
    },
  ];
  for (const result of results) {
    result.ms.sort((x, y) => x - y);
    const p50 = percentile(result.ms, 50);
    latency.push({
      path: `paid call + ${result.junk} ${result.kind} junk settles`,
      "p50 ms": p50,
      "p99 ms": percentile(result.ms, 99),
      ratio: (p50 / p50a).toFixed(2),
      refused: `${result.refused} of ${result.junk * result.ms.length}`,
      "junk verified during call": (result.junkVerified / result.ms.length).toFixed(2),
    });
  }

  // CPU: a warm-up pass each, then the measured pass.
  const gets = (n: number) => Array.from({ length: n }, () => undefined);
  const measure = async (kind: "challenge" | Kind) => {
    if (kind === "challenge") {
      await cpuPerRequest(`${bridge.url}/acme/cpu`, gets(50), "GET");
      return cpuPerRequest(`${bridge.url}/acme/cpu`, gets(CPU_REQUESTS), "GET");
    }
    await cpuPerRequest(`${bridge.url}/facilitator/settle`, await junkBodies(kind, junkAccept, 50));
    return cpuPerRequest(
      `${bridge.url}/facilitator/settle`,
      await junkBodies(kind, junkAccept, CPU_REQUESTS),
    );
  };
  const base = await measure("challenge");
  const cpu: Record<string, string | number>[] = [
    {
      request: "402 challenge (baseline)",
      "CPU ms/request": base.ms,
      ratio: "1.00",
      outcomes: summary(base.outcomes),
    },
  ];
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const m = await measure(kind);
    cpu.push({
      request: `${kind} junk settle, refused`,
      "CPU ms/request": m.ms,
      ratio: (m.ms / base.ms).toFixed(2),
      outcomes: summary(m.outcomes),
    });
  }
  console.log(
    `\nPaid x402 v1 call (verify + forward + settle tx), alone and behind refused junk settles (${ITERATIONS} calls each; ratio = p50 / p50 alone)\n`,
  );
  console.log(table(latency));
  console.log(
    `\nBridge process CPU (bridge + in-process chain) per request, ${CPU_REQUESTS} requests 4 at a time (ratio = / 402 challenge)\n`,
  );
  console.log(table(cpu));
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(`\nhost load average (1, 5, 15 min): ${load.join(", ")}`);
  mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
  writeFileSync(
    join(import.meta.dirname, "results", "bridge-junk-flood.json"),
    `${JSON.stringify({ at: new Date().toISOString(), iterations: ITERATIONS, loadavg: load, latency, cpu }, null, 2)}\n`,
  );
} finally {
  attacker.kill();
  await bridge.close();
  await upstream.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

function summary(outcomes: string[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([o, n]) => `${n}x ${o}`).join(", ");
}
