/**
 * `/v1/quote` requests per second against PGlite and PostgreSQL, next to `/healthz` (the HTTP
 * stack's own limit) measured in the same run, plus a merchant read and a POL quote (one price-feed read).
 * Load comes from autocannon (keep-alive connections, one request in flight each). PostgreSQL runs when
 * TEST_DATABASE_URL is set. Run: pnpm bench quote. Figures: bench/results/quote-throughput.json
 * (`ratio_vs_healthz` per database for the USDC quote). No goal: quotes are durable and server-signed
 * (docs/decisions/0048-quote-throughput-goal-retired.md); the ratio is a regression guard, compared run to run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registrationBody, startTestApi, testDatabaseKinds } from "@tollgate/api/testing";
import { startTestChains } from "@tollgate/api/testing/chains";
import autocannon from "autocannon";
import { table, writeResults } from "./lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

interface Figures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  errors: number;
}

async function measure(url: string, options: { method?: "POST"; body?: string } = {}): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: CONCURRENCY,
    duration: SECONDS,
    ...(options.body
      ? { method: "POST", body: options.body, headers: { "content-type": "application/json" } }
      : {}),
  });
  const ok = result["2xx"];
  return {
    rps: ok / (result.duration || SECONDS),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-quote-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const rows: Record<string, string | number>[] = [];
const results: Record<string, Record<string, unknown>> = {};
try {
  for (const kind of testDatabaseKinds()) {
    const api = await startTestApi(kind, { DATA_DIR: dataDir, RATE_LIMIT_QUOTES_PER_MINUTE: "100000000" });
    try {
      const created = await api.call("POST", "/v1/merchants", {
        body: registrationBody({ network_mode: "test" }),
      });
      const merchantId = String(created.json.merchant_id);
      const quoteBody = (asset: string) =>
        JSON.stringify({
          merchant_id: merchantId,
          resource: "/v1/search",
          tier: "standard",
          payer: PAYER,
          asset,
        });
      // Warm-up (JIT, caches, connection pool), not measured.
      await autocannon({ url: `${api.baseUrl}/healthz`, connections: 4, duration: 1 });
      const scenarios: [string, string, () => Promise<Figures>][] = [
        ["healthz", "GET /healthz (baseline)", () => measure(`${api.baseUrl}/healthz`)],
        [
          "merchant_read",
          "GET /v1/merchants/{id}",
          () => measure(`${api.baseUrl}/v1/merchants/${merchantId}`),
        ],
        [
          "quote_usdc",
          "POST /v1/quote USDC",
          () => measure(`${api.baseUrl}/v1/quote`, { body: quoteBody("USDC") }),
        ],
        [
          "quote_pol",
          "POST /v1/quote POL (feed read)",
          () => measure(`${api.baseUrl}/v1/quote`, { body: quoteBody("POL") }),
        ],
      ];
      const figures: Record<string, Figures> = {};
      for (const [key, name, run] of scenarios) {
        const result = await run();
        figures[key] = result;
        const baseline = figures.healthz!;
        rows.push({
          database: kind,
          scenario: name,
          "req/s": result.rps,
          "p50 ms": result.p50_ms,
          "p99 ms": result.p99_ms,
          errors: result.errors,
          "vs healthz": `${(result.rps / baseline.rps).toFixed(3)}x`,
        });
        process.stderr.write(`  ${kind}: ${name} done\n`);
      }
      const ratio = figures.quote_usdc!.rps / figures.healthz!.rps;
      results[kind] = { ...figures, ratio_vs_healthz: ratio };
    } finally {
      await api.close();
    }
  }
} finally {
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(
  `\n/v1/quote throughput (${CONCURRENCY} connections, ${SECONDS} s each, one process, loopback, autocannon)\n`,
);
console.log(table(rows));
for (const [kind, r] of Object.entries(results)) {
  console.log(
    `${kind}: ratio_vs_healthz ${(r.ratio_vs_healthz as number).toFixed(3)} (a regression guard: compare with the last run in bench/results/)`,
  );
}
const path = writeResults("quote-throughput", {
  concurrency: CONCURRENCY,
  seconds: SECONDS,
  databases: results,
});
console.log(`figures: ${path}`);
