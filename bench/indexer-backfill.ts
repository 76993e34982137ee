/**
 * Indexer backfill benchmark (docs/performance.md: how cost grows with the number of logs).
 *
 *   pnpm bench indexer-backfill                                   (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm bench indexer-backfill
 *                                                                 (PGlite and PostgreSQL; TEST_DATABASE_URL works too)
 *   BENCH_LOGS=50000,500000 BENCH_KINDS=postgres BENCH_BATCH=250  (defaults: 50000, both kinds, 250)
 *
 * 1. Generates Payment logs on a local Hardhat chain in few transactions: BatchPayer
 *    (contracts/contracts/test/BatchPayer.sol) pays BENCH_BATCH times per transaction through SplitterV12, so each
 *    block holds BENCH_BATCH logs (500,000 logs = 2,000 transactions). Sizes in BENCH_LOGS are cumulative: the
 *    chain grows to each size in turn and each size is backfilled from the deployment block into a fresh database.
 * 2. Backfills them with the real follower step (adaptive eth_getLogs, header checks, decode, one transaction per
 *    batch with cursor, state transitions, rollup trigger and outbox) until it is idle. RPC wall time (in-process
 *    EIP-1193 transport; time with at least one call in flight) is measured beside it.
 * 3. In the same run, inserts the same rows (every column the indexer wrote, read back from its database) with a
 *    plain multi-row INSERT, 1,000 rows per statement, into an empty database of the same kind and schema
 *    (triggers included): drizzle on PGlite, postgres-js `insert ... ${sql(rows)}` on PostgreSQL. Only the
 *    inserts are timed. This is the storage ceiling the indexer is compared against (`ratio` = indexer / raw).
 * Memory: process.resourceUsage().maxRSS (the high-water mark, which includes the in-process chain) before and
 * after each backfill, and the RSS and V8 heap-used peaks sampled every 20 ms during it (the heap is where the
 * indexer's batches live; RSS also holds the chain). The indexer runs with its defaults, so a batch holds at most
 * MAX_LOGS_PER_BATCH (10,000) logs. No assertions on timings.
 */
import { loadavg } from "node:os";
import { table, writeResults } from "./lib";

const SIZES = (process.env.BENCH_LOGS ?? "50000").split(",").map((s) => Number(s.trim()));
const BATCH = Number(process.env.BENCH_BATCH ?? 250);
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const KINDS = (process.env.BENCH_KINDS?.split(",") ?? (PG_URL ? ["pglite", "postgres"] : ["pglite"])) as (
  | "pglite"
  | "postgres"
)[];
if (KINDS.includes("postgres") && !PG_URL)
  throw new Error("BENCH_KINDS names postgres without BENCH_DATABASE_URL");
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
  gt,
  newSyncState,
  rawPostgres,
  requestOf,
  settlements,
  startBenchChains,
  syncStep,
} = await import("@tollgate/indexer/testing");

const mib = (bytes: number) => bytes / 2 ** 20;
const maxRssMiB = () => process.resourceUsage().maxRSS / 1024;
const loadStart = loadavg();
const chains = await startBenchChains(["amoy"]);
const chain = chainOf(chains, "amoy");
const merchant = account(15).address;
const payer = await deployBatchPayer(chain, 10, 10n ** 21n);
let made = 0;
let txs = 0;

const rows: Record<string, string | number>[] = [];
const figures: Record<string, unknown>[] = [];
for (const size of SIZES) {
  const t0 = performance.now();
  while (made < size) {
    const n = Math.min(BATCH, size - made);
    const orderIds = Array.from({ length: n }, (_, k) => `qt_bench${made + k}`);
    await batchPay(chain, 10, payer, merchant, orderIds, 1_000n);
    made += n;
    txs++;
  }
  console.log(
    `chain holds ${made} Payment logs in ${txs} transactions (+${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );

  for (const kind of KINDS) {
    const cfg = configFor(chains, "amoy", { confirmations: 1 });
    const handle = await createTestDatabase(kind);
    // Wall time with at least one RPC call in flight (header reads overlap 16 at a time).
    const rpcTime = { ms: 0, calls: 0, inFlight: 0, since: 0 };
    const request = requestOf(chain);
    const rpc = createRpc(async (args) => {
      if (rpcTime.inFlight++ === 0) rpcTime.since = performance.now();
      try {
        return await request(args);
      } finally {
        if (--rpcTime.inFlight === 0) rpcTime.ms += performance.now() - rpcTime.since;
        rpcTime.calls++;
      }
    });
    const state = newSyncState(cfg);
    const maxRssBefore = maxRssMiB();
    const rssBefore = mib(process.memoryUsage.rss());
    let rssPeak = rssBefore;
    const heapBefore = mib(process.memoryUsage().heapUsed);
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, mib(process.memoryUsage.rss()));
      heapPeak = Math.max(heapPeak, mib(process.memoryUsage().heapUsed));
    }, 20);
    let batches = 0;
    const started = performance.now();
    for (;;) {
      const r = await syncStep(handle.db, rpc, cfg, state, { now: () => new Date() });
      if (r.kind === "idle") break;
      batches++;
    }
    const indexSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const maxRssAfter = maxRssMiB();
    const [{ n } = { n: 0 }] = await handle.db.select({ n: count() }).from(settlements);
    if (n !== made) throw new Error(`indexed ${n} of ${made}`);

    // Raw multi-row insert of the same rows into an empty database; rows are read in pages, only inserts are timed.
    const empty = await createTestDatabase(kind);
    let rawMs = 0;
    let lastId = 0n;
    for (;;) {
      const page = await handle.db
        .select()
        .from(settlements)
        .where(gt(settlements.id, lastId))
        .orderBy(settlements.id)
        .limit(10_000);
      if (page.length === 0) break;
      lastId = page[page.length - 1]!.id;
      const t = performance.now();
      for (let i = 0; i < page.length; i += 1000) await insertRaw(kind, empty, page.slice(i, i + 1000));
      rawMs += performance.now() - t;
    }
    const rawSeconds = rawMs / 1000;
    await empty.close();
    await handle.close();

    const ratio = indexSeconds > 0 ? rawSeconds / indexSeconds : 0;
    rows.push({
      database: kind,
      logs: n,
      batches,
      "indexer s": indexSeconds,
      "indexer logs/s": n / indexSeconds,
      "of which rpc s": rpcTime.ms / 1000,
      "raw insert s": rawSeconds,
      "raw logs/s": n / rawSeconds,
      ratio,
      "maxRSS MiB before→after": `${maxRssBefore.toFixed(0)}→${maxRssAfter.toFixed(0)}`,
      "RSS peak - start MiB": rssPeak - rssBefore,
      "heap peak - start MiB": heapPeak - heapBefore,
    });
    // Each size is printed and written as soon as it is measured: a 500,000-log run is long.
    console.log(table(rows.slice(-1)));
    figures.push({
      database: kind,
      logs: n,
      batches,
      indexer_seconds: indexSeconds,
      indexer_logs_per_s: n / indexSeconds,
      rpc_seconds: rpcTime.ms / 1000,
      rpc_calls: rpcTime.calls,
      raw_insert_seconds: rawSeconds,
      raw_logs_per_s: n / rawSeconds,
      ratio_vs_raw: ratio,
      max_rss_mib_before: maxRssBefore,
      max_rss_mib_after: maxRssAfter,
      rss_peak_over_start_mib: rssPeak - rssBefore,
      heap_peak_over_start_mib: heapPeak - heapBefore,
      max_logs_per_batch: cfg.maxLogsPerBatch,
    });
    writeResults("indexer-backfill", { logs_per_block: BATCH, load_start: loadStart, runs: figures });
  }
}

type Handle = Awaited<ReturnType<typeof createTestDatabase>>;
type Row = typeof settlements.$inferSelect;
async function insertRaw(kind: "pglite" | "postgres", db: Handle, chunk: Row[]): Promise<void> {
  if (kind === "pglite") {
    await db.db.insert(settlements).values(chunk.map(({ id: _id, ...rest }) => rest));
    return;
  }
  const sql = rawPostgres(db.db);
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  const values = chunk.map((r) => ({
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
    merchant_id: r.merchantId,
    quote_id: r.quoteId,
    bridge_order_id: r.bridgeOrderId,
    quote_mismatch: r.quoteMismatch === null ? null : JSON.stringify(r.quoteMismatch),
    state: r.state,
    notified_at: iso(r.notifiedAt),
    seen_at: iso(r.seenAt),
    confirmed_at: iso(r.confirmedAt),
    final_at: iso(r.finalAt),
    orphaned_at: iso(r.orphanedAt),
    updated_at: iso(r.updatedAt),
  }));
  await sql`insert into settlements ${sql(values)}`;
}

const loadEnd = loadavg();
console.log(`\nBackfill from a local chain (in-process EIP-1193 transport), ${BATCH} logs per block`);
console.log(
  `load average ${loadStart.map((l) => l.toFixed(1)).join(" ")} → ${loadEnd.map((l) => l.toFixed(1)).join(" ")}\n`,
);
console.log(table(rows));
console.log(
  `\n${writeResults("indexer-backfill", { logs_per_block: BATCH, load_start: loadStart, runs: figures })}`,
);
await chains.stop();
process.exit(0);
