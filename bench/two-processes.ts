/**
 * Two API processes on one PostgreSQL and one Redis against one process (docs/performance.md "How cost grows"):
 * 1. /v1/quote throughput from autocannon: one process (baseline) vs two processes side by side, same total
 *    connections split evenly; the ratio is the scaling the machine allows (2 shared cores here).
 * 2. The one-receipt-per-quote rule across processes: QUOTES quotes, each paid once on chain, then 50 parallel
 *    /v1/pay (distinct Idempotency-Keys, alternating between the processes) for them. Checked and printed: one
 *    receipt per quote in the database, one receipt per on-chain Payment log, every 200 naming that receipt.
 * Each API is a real OS process (apps/api/src/main.ts). PostgreSQL is required (skipped without it); Redis is
 * used when it answers (TEST_REDIS_URL or the local default). Run: pnpm bench two-processes.
 * Figures: bench/results/two-processes.json.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentOn, payBody, sendSettlement, startTestChains } from "@tollgate/api/testing/chains";
import type { QuoteResponse } from "@tollgate/shared/aifp";
import { freePort } from "@tollgate/shared/test-process";
import autocannon from "autocannon";
import { type ApiProcess, reachable, startApiProcess, table, writeResults } from "./lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PARALLEL_PAYS = 50;
const QUOTES = Number(process.env.BENCH_QUOTES ?? 5);
const PG_URL =
  process.env.BENCH_DATABASE_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";

if (!(await reachable(PG_URL, 5432))) {
  console.log(`two-processes: skipped, no PostgreSQL at ${new URL(PG_URL).host} (set TEST_DATABASE_URL)`);
  process.exit(0);
}
const redis = (await reachable(REDIS_URL, 6379)) ? REDIS_URL : undefined;
// The test-database helper reads TEST_DATABASE_URL when first imported: import it after this line.
process.env.TEST_DATABASE_URL = PG_URL;
const { createTestDatabase, registrationBody } = await import("@tollgate/api/testing");

interface Figures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}

async function quoteLoad(urls: string[], body: string): Promise<Figures> {
  const runs = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}/v1/quote`,
        connections: Math.max(1, Math.round(CONNECTIONS / urls.length)),
        duration: SECONDS,
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      }),
    ),
  );
  const worst = (pick: (r: (typeof runs)[number]) => number) => Math.max(...runs.map(pick));
  return {
    rps: runs.reduce((sum, r) => sum + r["2xx"] / (r.duration || SECONDS), 0),
    p50_ms: worst((r) => r.latency.p50),
    p99_ms: worst((r) => r.latency.p99),
    errors: runs.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
  };
}

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-two-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const agent = agentOn(chains.chains[0]!, 17);
const db = await createTestDatabase("postgres");
const sql = db.openSession!();
const [{ name }] = (await sql`select current_database() as name`) as unknown as [{ name: string }];
const dbUrl = new URL(PG_URL);
dbUrl.pathname = `/${name}`;
const processes: ApiProcess[] = [];
const throughputRows: Record<string, string | number>[] = [];
const results: Record<string, unknown> = { redis: redis !== undefined };
let failures = 0;
try {
  const ports = [await freePort(), await freePort()];
  const env = {
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    SERVE_CONSOLE: "false",
    DATA_DIR: dataDir,
    DATABASE_URL: dbUrl.toString(),
    ...(redis ? { REDIS_URL: redis, TELEMETRY_KEY_PREFIX: `bench:two:${process.pid}:` } : {}),
    // Both answer as one service behind a load balancer: the same issuer.
    BASE_URL: `http://127.0.0.1:${ports[0]}`,
    CONFIRMATIONS_AMOY: "1",
    RATE_LIMIT_QUOTES_PER_MINUTE: "100000000",
    RATE_LIMIT_PAYS_PER_MINUTE: "100000000",
  };
  // One at a time: the first creates the receipt keys in DATA_DIR and migrates; the second finds both done.
  for (const port of ports) processes.push(await startApiProcess(port, env));
  const [a, b] = processes as [ApiProcess, ApiProcess];
  const created = await fetch(`${a.baseUrl}/v1/merchants`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(registrationBody({ network_mode: "test" })),
  });
  const merchantId = String(((await created.json()) as { merchant_id: string }).merchant_id);
  const quoteBody = JSON.stringify({
    merchant_id: merchantId,
    resource: "/v1/search",
    tier: "standard",
    payer: agent.address,
  });

  // 1. Throughput. Warm-up first (JIT, pools, caches), not measured.
  await quoteLoad([a.baseUrl, b.baseUrl], quoteBody);
  // Alternating rounds, best of each: a shared machine's noise falls on both setups alike.
  const ones: Figures[] = [];
  const twos: Figures[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ones.push(await quoteLoad([a.baseUrl], quoteBody));
    twos.push(await quoteLoad([a.baseUrl, b.baseUrl], quoteBody));
  }
  const best = (runs: Figures[]) => runs.reduce((x, y) => (y.rps > x.rps ? y : x));
  const one = best(ones);
  const two = best(twos);
  for (const [label, f] of [
    ["1 process (baseline)", one],
    ["2 processes", two],
  ] as const) {
    throughputRows.push({
      setup: label,
      "quote req/s": f.rps,
      "p50 ms": f.p50_ms,
      "p99 ms": f.p99_ms,
      errors: f.errors,
      "vs 1 process": `${(f.rps / one.rps).toFixed(2)}x`,
    });
  }
  results.throughput = {
    one_process: one,
    two_processes: two,
    ratio: two.rps / one.rps,
    rounds: { ones, twos },
  };

  // 2. 50 parallel /v1/pay for QUOTES quotes, split across both processes.
  const paid: { quote: QuoteResponse; tx: `0x${string}` }[] = [];
  for (let i = 0; i < QUOTES; i++) {
    const response = await fetch(`${(i % 2 ? b : a).baseUrl}/v1/quote`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: quoteBody,
    });
    const quote = (await response.json()) as QuoteResponse;
    paid.push({ quote, tx: await sendSettlement(agent, quote.settlement_call) });
  }
  const requests = await Promise.all(
    Array.from({ length: PARALLEL_PAYS }, async (_, i) => {
      const { quote, tx } = paid[i % QUOTES]!;
      const key = `bench-two-${quote.quote_id}-${i}`;
      return { i, quote, key, body: JSON.stringify(await payBody(agent, quote, tx, key)) };
    }),
  );
  const answers = await Promise.all(
    requests.map(async ({ i, quote, key, body }) => {
      const target = i % 2 ? b : a;
      const response = await fetch(`${target.baseUrl}/v1/pay`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body,
      });
      const json = (await response.json()) as { receipt_id?: string; code?: string };
      return {
        quoteId: quote.quote_id,
        status: response.status,
        receiptId: json.receipt_id,
        code: json.code,
      };
    }),
  );
  const ids = paid.map((p) => p.quote.quote_id);
  const receipts = (await sql`
    select quote_id, id, tx_hash, log_index from receipts where quote_id in ${sql(ids)}`) as unknown as {
    quote_id: string;
    id: string;
    tx_hash: string;
    log_index: number;
  }[];
  const statusCounts = new Map<string, number>();
  for (const answer of answers) {
    const label = answer.status === 200 ? "200" : `${answer.status} ${answer.code}`;
    statusCounts.set(label, (statusCounts.get(label) ?? 0) + 1);
  }
  const payRows = paid.map(({ quote, tx }) => {
    const rows = receipts.filter((r) => r.quote_id === quote.quote_id);
    const forLog = receipts.filter((r) => r.tx_hash === tx.toLowerCase());
    const mine = answers.filter((x) => x.quoteId === quote.quote_id);
    const ok = mine.filter((x) => x.status === 200);
    const agree = ok.every((x) => x.receiptId === rows[0]?.id);
    const pass = rows.length === 1 && forLog.length === 1 && ok.length > 0 && agree;
    if (!pass) failures++;
    return {
      quote: quote.quote_id,
      "pay requests": mine.length,
      "200s": ok.length,
      "receipts in db": rows.length,
      "receipts for its Payment log": forLog.length,
      "every 200 names that receipt": agree ? "yes" : "NO",
      verdict: pass ? "one receipt" : "FAIL",
    };
  });
  results.parallel_pay = {
    requests: PARALLEL_PAYS,
    quotes: QUOTES,
    statuses: Object.fromEntries(statusCounts),
    per_quote: payRows,
    one_receipt_per_quote: failures === 0,
  };
  console.log(
    `\n/v1/quote throughput, one vs two API processes on one PostgreSQL${redis ? " and one Redis" : " (no Redis)"} (${CONNECTIONS} connections in all, ${SECONDS} s, best of ${ROUNDS} alternating rounds, autocannon in the bench process)\n`,
  );
  console.log(table(throughputRows));
  console.log(
    `\n${PARALLEL_PAYS} parallel /v1/pay (distinct keys) for ${QUOTES} paid quotes, alternating between the processes\n`,
  );
  console.log(table(payRows));
  console.log(`answers: ${[...statusCounts].map(([k, v]) => `${v} x ${k}`).join(", ")}`);
  console.log(
    failures === 0 ? "exactly one receipt per quote and per on-chain payment" : `${failures} quote(s) FAILED`,
  );
} finally {
  for (const p of processes) await p.stop();
  await sql.end();
  await db.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(`figures: ${writeResults("two-processes", results)}`);
process.exit(failures === 0 ? 0 : 1);
