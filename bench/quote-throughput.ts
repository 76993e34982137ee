/**
 * `/v1/quote` requests per second against PGlite and PostgreSQL (issue 4 benchmark), next to `/healthz` (the
 * HTTP stack's own limit) and a merchant read (one indexed query) measured in the same run.
 * PostgreSQL runs when TEST_DATABASE_URL (or BENCH_DATABASE_URL) is set. Run: pnpm exec tsx bench/quote-throughput.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registrationBody, startTestApi, testDatabaseKinds } from "@tollgate/api/testing";
import { startTestChains } from "@tollgate/api/testing/chains";
import { load, table } from "./lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-quote-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const rows: Record<string, string | number>[] = [];
try {
  for (const kind of testDatabaseKinds()) {
    const api = await startTestApi(kind, { DATA_DIR: dataDir, RATE_LIMIT_QUOTES_PER_MINUTE: "100000000" });
    try {
      const created = await api.call("POST", "/v1/merchants", {
        body: registrationBody({ network_mode: "test" }),
      });
      const merchantId = String(created.json.merchant_id);
      const post = (asset: string) => async () => {
        const response = await fetch(`${api.baseUrl}/v1/quote`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            merchant_id: merchantId,
            resource: "/v1/search",
            tier: "standard",
            payer: PAYER,
            asset,
          }),
        });
        await response.arrayBuffer();
        return response.status === 200;
      };
      const get = (path: string) => async () => {
        const response = await fetch(`${api.baseUrl}${path}`);
        await response.arrayBuffer();
        return response.status === 200;
      };
      const baseline = await load(get("/healthz"), CONCURRENCY, SECONDS);
      const scenarios: [string, () => Promise<boolean>][] = [
        ["GET /healthz (baseline)", get("/healthz")],
        ["GET /v1/merchants/{id}", get(`/v1/merchants/${merchantId}`)],
        ["POST /v1/quote USDC", post("USDC")],
        ["POST /v1/quote POL (feed read)", post("POL")],
      ];
      for (const [name, fn] of scenarios) {
        const result = name.startsWith("GET /healthz") ? baseline : await load(fn, CONCURRENCY, SECONDS);
        rows.push({
          database: kind,
          scenario: name,
          "req/s": result.rps,
          "p50 ms": result.p50Ms,
          "p99 ms": result.p99Ms,
          errors: result.errors,
          "vs healthz": `${(result.rps / baseline.rps).toFixed(3)}x`,
        });
        process.stderr.write(`  ${kind}: ${name} done\n`);
      }
    } finally {
      await api.close();
    }
  }
} finally {
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(
  `\n/v1/quote throughput (${CONCURRENCY} concurrent clients, ${SECONDS} s each, one process, loopback)\n`,
);
console.log(table(rows));
