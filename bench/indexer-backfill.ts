/**
 * Indexer backfill benchmark (issue 5 "Benchmarks").
 *
 *   pnpm exec tsx bench/indexer-backfill.ts                       (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm exec tsx bench/indexer-backfill.ts
 *                                                                 (PGlite and PostgreSQL; TEST_DATABASE_URL works too)
 *   BENCH_LOGS=50000 BENCH_BATCH=250                              (defaults)
 *
 * 1. Generates BENCH_LOGS splitter Payment logs on a local Hardhat chain: BatchPayer pays BENCH_BATCH times
 *    per transaction through SplitterV12 (alternating payNative / payMatic).
 * 2. Backfills them with the real follower step (adaptive eth_getLogs, header checks, decode, one
 *    transaction per batch with cursor, state transitions and outbox) from the deployment block.
 * 3. In the same run, inserts the same rows with a plain multi-row INSERT (drizzle on PGlite; raw
 *    postgres-js `insert ... ${sql(rows)}` on PostgreSQL), batches of 1,000, into an empty database:
 *    the storage ceiling the indexer is compared against.
 * Prints a table; no assertions on timings.
 */
import { table } from "./lib";

const LOGS = Number(process.env.BENCH_LOGS ?? 50_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 250);
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
// The test-database helper reads TEST_DATABASE_URL when it is first imported, so everything that
// reaches it is imported after this line.
if (PG_URL) process.env.TEST_DATABASE_URL = PG_URL;
const {
  account,
  batchPay,
  chainOf,
  configFor,
  count,
  createRpc,
  createTestDatabase,
  deployBatchPayer,
  newSyncState,
  rawPostgres,
  requestOf,
  settlements,
  startChains,
  syncStep,
} = await import("@tollgate/indexer/testing");

const chains = await startChains(["amoy"]);
const chain = chainOf(chains, "amoy");
const merchant = account(15).address;
const t0 = performance.now();
const payer = await deployBatchPayer(chain, 10, 10n ** 21n);
let made = 0;
let txs = 0;
while (made < LOGS) {
  const n = Math.min(BATCH, LOGS - made);
  await batchPay(
    chain,
    10,
    payer,
    merchant,
    Array.from({ length: n }, (_, k) => `qt_bench${made + k}`),
    1_000n,
  );
  made += n;
  txs++;
}
const genSeconds = (performance.now() - t0) / 1000;
console.log(
  `generated ${made} Payment logs in ${txs} transactions (${txs} blocks) in ${genSeconds.toFixed(1)} s`,
);

const rows: Record<string, string | number>[] = [];
const kinds = PG_URL ? (["pglite", "postgres"] as const) : (["pglite"] as const);
for (const kind of kinds) {
  const cfg = configFor(chains, "amoy", { confirmations: 1 });
  const handle = await createTestDatabase(kind);
  const rpc = createRpc(requestOf(chain));
  const state = newSyncState(cfg);
  let steps = 0;
  const started = performance.now();
  for (;;) {
    const r = await syncStep(handle.db, rpc, cfg, state, { now: () => new Date() });
    steps++;
    if (r.kind === "idle") break;
  }
  const indexSeconds = (performance.now() - started) / 1000;
  const [{ n } = { n: 0 }] = await handle.db.select({ n: count() }).from(settlements);
  if (n !== made) throw new Error(`indexed ${n} of ${made}`);
  rows.push({
    database: kind,
    path: `indexer backfill (${steps - 1} batches)`,
    logs: n,
    seconds: indexSeconds,
    "logs/s": n / indexSeconds,
  });

  // Raw multi-row insert of the same rows into an empty database.
  const indexed = (await handle.db.select().from(settlements)).map(({ id: _id, ...rest }) => rest);
  const empty = await createTestDatabase(kind);
  const rawStarted = performance.now();
  if (kind === "postgres") {
    const sql = rawPostgres(empty.db);
    for (let i = 0; i < indexed.length; i += 1000) {
      const chunk = indexed.slice(i, i + 1000).map((r) => ({
        chain_id: r.chainId,
        network: r.network,
        splitter: r.splitter,
        splitter_version: r.splitterVersion,
        tx_hash: r.txHash,
        log_index: r.logIndex,
        block_number: r.blockNumber.toString(),
        block_hash: r.blockHash,
        payer: r.payer,
        merchant_address: r.merchantAddress,
        token: r.token,
        total_amount: r.totalAmount,
        merchant_amount: r.merchantAmount,
        treasury_amount: r.treasuryAmount,
        ip_creator_amount: r.ipCreatorAmount,
        order_id: r.orderId,
        quote_id: r.quoteId,
        state: r.state,
        seen_at: r.seenAt.toISOString(),
        updated_at: r.updatedAt.toISOString(),
      }));
      await sql`insert into settlements ${sql(chunk)}`;
    }
  } else {
    for (let i = 0; i < indexed.length; i += 1000)
      await empty.db.insert(settlements).values(indexed.slice(i, i + 1000));
  }
  const rawSeconds = (performance.now() - rawStarted) / 1000;
  rows.push({
    database: kind,
    path: kind === "postgres" ? "raw postgres-js multi-row insert" : "raw drizzle multi-row insert",
    logs: indexed.length,
    seconds: rawSeconds,
    "logs/s": indexed.length / rawSeconds,
  });
  await empty.close();
  await handle.close();
}
console.log(`\nBackfill of ${made} Payment logs from a local chain (in-process EIP-1193 transport)\n`);
console.log(table(rows));
await chains.stop();
process.exit(0);
