/**
 * How cost grows (docs/performance.md): quote and pay latency (p50/p99) with 0 (baseline), 10,000 and 1,000,000
 * quotes, receipts and pay idempotency keys already in the database, and EXPLAIN (ANALYZE, BUFFERS) of every hot
 * query of the quote and pay paths at each size, with whether it is index-backed. PostgreSQL only: a fresh database
 * `tollgate_bench_growth` on the TEST_DATABASE_URL server (default the local test server), dropped afterwards.
 * Rows are seeded with generate_series from one real paid quote (random-looking md5 ids, like real ids).
 * Run: pnpm bench growth-quotes. Figures: bench/results/growth-quotes.json. Goal: flat (ratios near 1).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";
import { percentile, reachable, table, timedPaidCall, writeResults } from "./lib";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const WARMUP = 5;
const SIZES = (process.env.BENCH_GROWTH_SIZES ?? "0,10000,1000000").split(",").map(Number);
const SERVER_URL =
  process.env.BENCH_DATABASE_URL ||
  process.env.TEST_DATABASE_URL ||
  "postgres://postgres@127.0.0.1:5432/test";
const reachableServer = await reachable(SERVER_URL, 5432);
if (!reachableServer) {
  console.log(`growth-quotes: skipped, no PostgreSQL at ${new URL(SERVER_URL).host} (set TEST_DATABASE_URL)`);
  process.exit(0);
}
// The test-database helper reads TEST_DATABASE_URL when first imported: import it after this line.
process.env.TEST_DATABASE_URL = SERVER_URL;
const { createTestDatabase, registrationBody, startTestApi } = await import("@tollgate/api/testing");
type Handle = Awaited<ReturnType<typeof createTestDatabase>>;
type Sql = ReturnType<NonNullable<Handle["openSession"]>>;
type Runner = Pick<Sql, "unsafe">;

interface Hot {
  path: "quote" | "pay";
  name: string;
  sql: string;
  params: (ctx: Ctx) => unknown[];
  /** Writes run inside a rolled-back transaction; `before` prepares rows the statement needs there. */
  write?: boolean;
  before?: (sql: Runner, ctx: Ctx) => Promise<void>;
}

interface Ctx {
  quoteId: string;
  receiptId: string;
  merchantId: string;
  scope: string;
  key: string;
  chainId: number;
  txHash: string;
  logIndex: number;
}

const copyQuote = (newId: string) =>
  `insert into quotes select '${newId}', merchant_id, resource, tier, payer, units, unit_price_micro_usd,
   amount_micro_usd, network, chain_id, settlement_version, splitter, pay_to, asset, token, decimals, amount_atomic,
   merchant_amount, treasury_amount, ip_creator_amount, economics_profile, rate, settlement_call, expires_at, now()
   from quotes where id = $1`;

// The statements the quote and pay services send (drizzle's SQL, parameters from the last measured payment).
const HOT: Hot[] = [
  {
    path: "quote",
    name: "merchant by id (cache miss)",
    sql: "select * from merchants where id = $1",
    params: (c) => [c.merchantId],
  },
  {
    path: "quote",
    name: "merchant tiers (cache miss)",
    sql: "select * from merchant_tiers where merchant_id = $1",
    params: (c) => [c.merchantId],
  },
  {
    path: "quote",
    name: "insert quote (quote-writer)",
    sql: copyQuote("qt_explainexplainexpl"),
    params: (c) => [c.quoteId],
    write: true,
  },
  {
    path: "pay",
    name: "quote by id",
    sql: "select * from quotes where id = $1",
    params: (c) => [c.quoteId],
  },
  {
    path: "pay",
    name: "claim idempotency key",
    sql: `insert into idempotency_keys (scope, key, request_hash, state, locked_at, created_at)
          values ($1, $2, 'h', 'in_flight', now(), now()) on conflict do nothing returning key`,
    params: (c) => [c.scope, `${c.key}-explain`],
    write: true,
  },
  {
    path: "pay",
    name: "read idempotency key",
    sql: "select * from idempotency_keys where scope = $1 and key = $2",
    params: (c) => [c.scope, c.key],
  },
  {
    path: "pay",
    name: "receipt of quote",
    sql: "select * from receipts where quote_id = $1",
    params: (c) => [c.quoteId],
  },
  {
    path: "pay",
    name: "receipt of quote or log",
    sql: `select * from receipts where quote_id = $1 or (chain_id = $2 and tx_hash = $3 and log_index = $4)`,
    params: (c) => [c.quoteId, c.chainId, c.txHash, c.logIndex],
  },
  {
    path: "pay",
    name: "insert receipt",
    sql: `insert into receipts (id, quote_id, merchant_id, payer, chain_id, tx_hash, log_index, block_number, block_hash,
            confirmations, quota, kid, token, issued_at, expires_at)
          select 'rcpt_explainexplainex', 'qt_explainexplainexpl', merchant_id, payer, chain_id, '0xexplain', 0, 1,
            '0x', 1, 1, 'k', 't', now(), now() from quotes where id = $1
          on conflict do nothing returning *`,
    params: (c) => [c.quoteId],
    write: true,
    before: async (sql: Runner, c: Ctx) => {
      await sql.unsafe(copyQuote("qt_explainexplainexpl"), [c.quoteId]);
    },
  },
  {
    path: "pay",
    name: "complete idempotency key",
    sql: `update idempotency_keys set state = 'done', response_status = 200, response_body = '{}'
          where scope = $1 and key = $2`,
    params: (c) => [c.scope, c.key],
    write: true,
  },
  {
    path: "pay",
    name: "active webhook endpoint",
    sql: "select merchant_id from webhook_endpoints where merchant_id in ($1) and status = 'active'",
    params: (c) => [c.merchantId],
  },
  {
    path: "pay",
    name: "release idempotency key",
    sql: `delete from idempotency_keys where scope = $1 and key = $2 and state = 'in_flight' and locked_at = now()`,
    params: (c) => [c.scope, c.key],
    write: true,
  },
  {
    path: "pay",
    name: "replayed receipt by id",
    sql: "select * from receipts where id = $1",
    params: (c) => [c.receiptId],
  },
];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const describe = (plan: PlanNode) =>
  nodes(plan)
    .filter((n) => n["Relation Name"] || n["Index Name"])
    .map((n) => `${n["Node Type"]}${n["Index Name"] ? ` ${n["Index Name"]}` : ` ${n["Relation Name"]}`}`)
    .join(" + ") || nodes(plan)[0]!["Node Type"];

async function explain(sql: Sql, hot: Hot, ctx: Ctx, seqscan: boolean) {
  let result: { plan: PlanNode; ms: number } | undefined;
  await sql
    .begin(async (tx: Runner) => {
      if (!seqscan) await tx.unsafe("set local enable_seqscan = off");
      await hot.before?.(tx, ctx);
      const [row] = await tx.unsafe(
        `explain (analyze, buffers, format json) ${hot.sql}`,
        hot.params(ctx) as never[],
      );
      const [out] = (row as unknown as { "QUERY PLAN": { Plan: PlanNode; "Execution Time": number }[] })[
        "QUERY PLAN"
      ];
      result = { plan: out!.Plan, ms: out!["Execution Time"] };
      throw new RollbackSignal(); // nothing an EXPLAIN ANALYZE wrote stays
    })
    .catch((error: unknown) => {
      if (!(error instanceof RollbackSignal)) throw error;
    });
  return result!;
}
class RollbackSignal extends Error {}

/** Index-backed: no sequential scan, or the planner picks one only while an index exists (seen with seqscan off). */
async function indexBacked(sql: Sql, hot: Hot, ctx: Ctx) {
  const natural = await explain(sql, hot, ctx, true);
  const seq = (p: PlanNode) => nodes(p).some((n) => n["Node Type"] === "Seq Scan");
  const buffers = nodes(natural.plan).reduce(
    (sum, n) => sum + (n["Shared Hit Blocks"] ?? 0) + (n["Shared Read Blocks"] ?? 0),
    0,
  );
  let verdict = "yes";
  if (seq(natural.plan)) {
    const forced = await explain(sql, hot, ctx, false);
    verdict = seq(forced.plan)
      ? "NO"
      : `yes (seq scan chosen on a small table; index ${describe(forced.plan)})`;
  }
  return { plan: describe(natural.plan), ms: natural.ms, buffers, verdict };
}

async function seed(sql: Sql, from: number, to: number, protoQuote: string, protoReceipt: string) {
  if (to < from) return;
  await sql.unsafe(
    `insert into quotes select 'qt_' || substr(md5('s' || g), 1, 22), merchant_id, resource, tier, payer, units,
      unit_price_micro_usd, amount_micro_usd, network, chain_id, settlement_version, splitter, pay_to, asset, token,
      decimals, amount_atomic, merchant_amount, treasury_amount, ip_creator_amount, economics_profile, rate,
      settlement_call, expires_at - interval '1 day', created_at - interval '1 day'
     from quotes, generate_series(${from}, ${to}) g where id = $1`,
    [protoQuote],
  );
  await sql.unsafe(
    `insert into receipts (id, quote_id, merchant_id, payer, chain_id, tx_hash, log_index, block_number, block_hash,
      confirmations, quota, kid, token, issued_at, expires_at)
     select 'rcpt_' || substr(md5('r' || g), 1, 22), 'qt_' || substr(md5('s' || g), 1, 22), merchant_id, payer,
      chain_id, '0x' || md5('t' || g) || md5('u' || g), 0, g, block_hash, confirmations, quota, kid, token,
      issued_at - interval '1 day', expires_at - interval '1 day'
     from receipts, generate_series(${from}, ${to}) g where id = $1`,
    [protoReceipt],
  );
  await sql.unsafe(
    `insert into idempotency_keys (scope, key, request_hash, state, response_status, response_body, locked_at,
      created_at)
     select scope, 'seed-' || g, request_hash, state, response_status, response_body, locked_at, created_at
     from idempotency_keys, generate_series(${from}, ${to}) g where key = $1`,
    ["bench-growth-prototype"],
  );
  await sql.unsafe("vacuum analyze quotes, receipts, idempotency_keys");
}

const label = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1_000 ? `${n / 1_000}k` : String(n);
const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-growth-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const agent = agentOn(chains.chains[0]!, 16);
// A fresh database on the server (tollgate_test_<random>), migrated, dropped on close.
const handle = await createTestDatabase("postgres");
const sql = handle.openSession!();
const latencyRows: Record<string, string | number>[] = [];
const planRows: Record<string, string | number>[] = [];
const results: Record<string, unknown> = {};
try {
  const api = await startTestApi("postgres", { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" }, { db: handle });
  try {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test" }),
    });
    const merchantId = String(created.json.merchant_id);
    const paidCall = async (key: string) => {
      const { quote, tx, quoteMs, payMs, json } = await timedPaidCall<{
        receipt_id: string;
        log_index: number;
        chain_id: number;
      }>(api.baseUrl, merchantId, agent, () => key);
      const ctx: Ctx = {
        quoteId: quote.quote_id,
        receiptId: json.receipt_id,
        merchantId,
        scope: `pay:${agent.address.toLowerCase()}`,
        key,
        chainId: json.chain_id,
        txHash: tx.toLowerCase(),
        logIndex: json.log_index,
      };
      return { quoteMs, payMs, ctx };
    };
    // The prototype every seeded row copies: one real paid quote.
    const proto = await paidCall("bench-growth-prototype");
    let seeded = 0;
    const baseline: Record<string, number> = {};
    for (const size of SIZES) {
      const t0 = performance.now();
      await seed(sql, seeded + 1, size, proto.ctx.quoteId, proto.ctx.receiptId);
      const seedSeconds = (performance.now() - t0) / 1000;
      seeded = Math.max(seeded, size);
      process.stderr.write(`  seeded ${size} rows per table in ${seedSeconds.toFixed(1)} s\n`);
      const quoteMs: number[] = [];
      const payMs: number[] = [];
      let last = proto.ctx;
      for (let i = 0; i < ITERATIONS + WARMUP; i++) {
        const call = await paidCall(`bench-growth-${size}-${i}`);
        last = call.ctx;
        if (i < WARMUP) continue;
        quoteMs.push(call.quoteMs);
        payMs.push(call.payMs);
      }
      quoteMs.sort((a, b) => a - b);
      payMs.sort((a, b) => a - b);
      const figures = {
        quote_p50_ms: percentile(quoteMs, 50),
        quote_p99_ms: percentile(quoteMs, 99),
        pay_p50_ms: percentile(payMs, 50),
        pay_p99_ms: percentile(payMs, 99),
      };
      if (Object.keys(baseline).length === 0) Object.assign(baseline, figures);
      const ratio = (k: keyof typeof figures) => `${(figures[k] / baseline[k]!).toFixed(2)}x`;
      latencyRows.push({
        "rows/table": size.toLocaleString("en"),
        "quote p50": figures.quote_p50_ms,
        "quote p99": figures.quote_p99_ms,
        "pay p50": figures.pay_p50_ms,
        "pay p99": figures.pay_p99_ms,
        "quote p50 vs 0": ratio("quote_p50_ms"),
        "pay p50 vs 0": ratio("pay_p50_ms"),
        "pay p99 vs 0": ratio("pay_p99_ms"),
      });
      const plans: Record<string, unknown>[] = [];
      for (const hot of HOT) {
        const plan = await indexBacked(sql, hot, last);
        plans.push({ path: hot.path, query: hot.name, ...plan });
        const row = planRows.find((r) => r.query === hot.name) ?? { path: hot.path, query: hot.name };
        if (!planRows.includes(row)) planRows.push(row);
        // Shared buffers touched: the load-independent measure of a query's cost as the tables grow.
        row[`buffers ${label(size)}`] = plan.buffers;
        row[`ms ${label(size)}`] = plan.ms;
        row.plan = plan.plan;
        row["index-backed"] = plan.verdict;
      }
      results[String(size)] = {
        ...figures,
        ratio_quote_p50: figures.quote_p50_ms / baseline.quote_p50_ms!,
        ratio_quote_p99: figures.quote_p99_ms / baseline.quote_p99_ms!,
        ratio_pay_p50: figures.pay_p50_ms / baseline.pay_p50_ms!,
        ratio_pay_p99: figures.pay_p99_ms / baseline.pay_p99_ms!,
        seed_seconds: seedSeconds,
        samples: quoteMs.length,
        plans,
      };
    }
  } finally {
    await api.close();
  }
} finally {
  await sql.end();
  await handle.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(
  `\nQuote and pay latency (ms, sequential, ${ITERATIONS} paid calls per size; tx send and mining excluded) with N quotes, receipts and pay idempotency keys already stored (PostgreSQL)\n`,
);
console.log(table(latencyRows));
console.log(
  "\nHot queries, EXPLAIN (ANALYZE, BUFFERS) at each size: shared buffers touched, execution ms; plan at the largest\n",
);
console.log(
  table(
    planRows.map(({ plan, "index-backed": backed, ...rest }) => ({
      ...rest,
      "index-backed": backed!,
      plan: plan!,
    })),
  ),
);
const notIndexed = planRows.filter((r) => r["index-backed"] === "NO");
console.log(
  notIndexed.length === 0
    ? "every hot query is index-backed"
    : `NOT index-backed: ${notIndexed.map((r) => r.query).join(", ")}`,
);
console.log(`figures: ${writeResults("growth-quotes", { iterations: ITERATIONS, sizes: results })}`);
