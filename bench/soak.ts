/**
 * A bounded soak (docs/performance.md "How cost grows"): the agent client (@tollgate/agent) pays a gated merchant
 * route in a loop against the API running as its own OS process (apps/api/src/main.ts, local chains, PostgreSQL when
 * it answers, else PGlite), for BENCH_SOAK_SECONDS (default 600). Every 10 s the API's own RSS, heap used and
 * event-loop delay are read from GET /api/metrics (reported from inside the API process). The first third is
 * warm-up; the verdict compares the mean of the last third with the second third (the baseline from the same run).
 * Run: pnpm bench soak (BENCH_SOAK_SECONDS=120 for a short one). Figures: bench/results/soak.json.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "@tollgate/agent";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";
import { gate } from "@tollgate/gate";
import { express } from "@tollgate/gate/testing";
import { freePort } from "@tollgate/shared/test-process";
import { type ApiProcess, reachable, startApiProcess, table, writeResults } from "./lib";

const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const SAMPLE_SECONDS = Number(process.env.BENCH_SAMPLE_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);
/** The API under test is started with it: /api/metrics answers only an operator session or this token. */
const METRICS_TOKEN = `soak-metrics-${randomBytes(12).toString("hex")}`;
/** Growth of the last third over the second third above this counts as growth (shared-machine noise below). */
const GROWTH_TOLERANCE = 0.1;
const PG_URL =
  process.env.BENCH_DATABASE_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://postgres@127.0.0.1:5432/test";

const usePostgres = await reachable(PG_URL, 5432);
// The test-database helper reads TEST_DATABASE_URL when first imported: import it after this line.
if (usePostgres) process.env.TEST_DATABASE_URL = PG_URL;
const { createTestDatabase, registrationBody } = await import("@tollgate/api/testing");

interface Sample {
  t_s: number;
  paid_calls: number;
  /** Receipts bought (quote + on-chain payment + /v1/pay); the other calls reuse a receipt's quota. */
  payments: number;
  rss_mb: number;
  heap_used_mb: number;
  loop_p50_ms: number;
  loop_p99_ms: number;
  loop_max_ms: number;
}

async function scrape(api: ApiProcess): Promise<Omit<Sample, "t_s" | "paid_calls" | "payments">> {
  const text = await (
    await fetch(`${api.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const value = (name: string) => {
    const match = text.match(new RegExp(`^${name.replace(/[{}."=]/g, "\\$&")} (\\S+)$`, "m"));
    if (!match) throw new Error(`/api/metrics has no ${name}`);
    return Number(match[1]);
  };
  const mb = (bytes: number) => bytes / 1_048_576;
  return {
    rss_mb: mb(value("process_resident_memory_bytes")),
    heap_used_mb: mb(value("nodejs_heap_size_used_bytes")),
    loop_p50_ms: value('nodejs_eventloop_delay_seconds{quantile="0.5"}') * 1000,
    loop_p99_ms: value('nodejs_eventloop_delay_seconds{quantile="0.99"}') * 1000,
    loop_max_ms: value('nodejs_eventloop_delay_seconds{quantile="1"}') * 1000,
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-soak-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const chain = chains.chains[0]!;
const db = usePostgres ? await createTestDatabase("postgres") : undefined;
const session = db?.openSession?.();
let databaseUrl: string | undefined;
if (session) {
  const [{ name }] = (await session`select current_database() as name`) as unknown as [{ name: string }];
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}
let api: ApiProcess | undefined;
const samples: Sample[] = [];
let paidCalls = 0;
let payments = 0;
let failedCalls = 0;
const failures = new Map<string, number>();
let shop: ReturnType<ReturnType<typeof express>["listen"]> | undefined;
try {
  const port = await freePort();
  const live = await startApiProcess(port, {
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    SERVE_CONSOLE: "false",
    DATA_DIR: dataDir,
    BASE_URL: `http://127.0.0.1:${port}`,
    METRICS_TOKEN,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    CONFIRMATIONS_AMOY: "1",
    RATE_LIMIT_QUOTES_PER_MINUTE: "100000000",
    RATE_LIMIT_PAYS_PER_MINUTE: "100000000",
    RATE_LIMIT_PUBLIC_PER_MINUTE: "100000000",
  });
  api = live;
  const created = await fetch(`${live.baseUrl}/v1/merchants`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(registrationBody({ network_mode: "test" })),
  });
  const merchantId = String(((await created.json()) as { merchant_id: string }).merchant_id);
  const app = express();
  app.get("/v1/search", gate({ merchantId, tier: "standard", apiBaseUrl: live.baseUrl }), (_req, res) => {
    res.json({ ok: true });
  });
  shop = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => shop!.once("listening", resolve));
  const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  // One agent (own wallet, own nonce sequence) per loop.
  const agents = Array.from({ length: CONCURRENCY }, (_, i) =>
    createAgent({
      account: agentOn(chain, 18 + i).account,
      chains: { [chain.chainId]: { rpcUrl: chain.rpcUrl } },
      limits: {
        maxPerPaymentUsd: "1",
        budgetPerPeriod: { usd: "1000000", periodMs: 3_600_000 },
        allowedOrigins: [live.baseUrl, shopUrl],
      },
      timing: { pollingIntervalMs: 100 },
      onStep: (step) => {
        if (step.type === "receipt") payments++;
      },
    }),
  );
  const started = performance.now();
  const deadline = started + SOAK_SECONDS * 1000;
  const loops = agents.map(async (agent) => {
    while (performance.now() < deadline) {
      try {
        const response = await agent.fetch(`${shopUrl}/v1/search?q=soak`);
        await response.arrayBuffer();
        if (response.status === 200) paidCalls++;
        else {
          failedCalls++;
          failures.set(`HTTP ${response.status}`, (failures.get(`HTTP ${response.status}`) ?? 0) + 1);
        }
      } catch (error) {
        failedCalls++;
        const label = error instanceof Error ? error.name : "error";
        failures.set(label, (failures.get(label) ?? 0) + 1);
      }
    }
  });
  const target = live;
  const sampler = (async () => {
    await scrape(target); // opens the first window
    for (let k = 1; performance.now() + SAMPLE_SECONDS * 1000 <= deadline + 500; k++) {
      const wait = started + k * SAMPLE_SECONDS * 1000 - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
      const figures = await scrape(target);
      samples.push({
        t_s: Math.round((performance.now() - started) / 1000),
        paid_calls: paidCalls,
        payments,
        ...figures,
      });
      process.stderr.write(
        `  t=${samples.at(-1)!.t_s}s calls=${paidCalls} payments=${payments} rss=${figures.rss_mb.toFixed(0)}MB heap=${figures.heap_used_mb.toFixed(0)}MB loop p99=${figures.loop_p99_ms.toFixed(1)}ms\n`,
      );
    }
  })();
  await Promise.all([...loops, sampler]);
} finally {
  shop?.closeAllConnections();
  shop?.close();
  await api?.stop();
  await session?.end();
  await db?.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const third = Math.floor(samples.length / 3);
const second = samples.slice(third, 2 * third);
const last = samples.slice(2 * third);
const metrics = ["rss_mb", "heap_used_mb", "loop_p50_ms", "loop_p99_ms"] as const;
const verdicts = metrics.map((metric) => {
  const base = mean(second.map((s) => s[metric]));
  const end = mean(last.map((s) => s[metric]));
  const ratio = end / base;
  return {
    metric,
    "mean 2nd third (baseline)": base,
    "mean last third": end,
    ratio: `${ratio.toFixed(2)}x`,
    verdict: !Number.isFinite(ratio) ? "too few samples" : ratio <= 1 + GROWTH_TOLERANCE ? "flat" : "GROWS",
    ratioValue: ratio,
  };
});
console.log(
  `\nSoak: ${CONCURRENCY} agents paying in a loop for ${SOAK_SECONDS} s against one API process (${usePostgres ? "PostgreSQL" : "PGlite"}); API figures every ${SAMPLE_SECONDS} s from /api/metrics (event-loop delay over each window)\n`,
);
console.log(table(samples.map((s) => ({ ...s }))));
console.log(
  `\npaid calls ${paidCalls} (receipts bought: ${payments}), failed ${failedCalls}${failures.size ? ` (${[...failures].map(([k, v]) => `${v} x ${k}`).join(", ")})` : ""}`,
);
console.log(
  `\nGrowth after warm-up (first third): last third vs second third, tolerance +${GROWTH_TOLERANCE * 100}%\n`,
);
console.log(table(verdicts.map(({ ratioValue: _r, ...row }) => row)));
const grows = verdicts.filter((v) => v.verdict === "GROWS" && v.metric !== "loop_p50_ms");
console.log(
  second.length === 0
    ? "verdict: none, too few samples (run longer than 3 sample periods)"
    : grows.length === 0
      ? "verdict: no growth beyond warm-up"
      : `verdict: growth in ${grows.map((g) => g.metric).join(", ")}`,
);
const path = writeResults("soak", {
  verdict: second.length === 0 ? "too_few_samples" : grows.length === 0 ? "flat" : "grows",
  seconds: SOAK_SECONDS,
  sample_seconds: SAMPLE_SECONDS,
  concurrency: CONCURRENCY,
  database: usePostgres ? "postgres" : "pglite",
  paid_calls: paidCalls,
  payments,
  failed_calls: failedCalls,
  samples,
  verdicts: verdicts.map(({ ratioValue, ...v }) => ({ ...v, ratio: ratioValue })),
});
console.log(`figures: ${path}`);
