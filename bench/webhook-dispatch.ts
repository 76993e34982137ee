/**
 * Webhook dispatch with one slow endpoint (docs/performance.md "How cost grows").
 *
 *   pnpm bench webhook                                            (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm bench webhook   (PGlite and PostgreSQL)
 *   BENCH_EVENTS=10000 BENCH_ENDPOINTS=100 BENCH_SLOW_MS=5000                      (defaults)
 *
 * BENCH_EVENTS pending events spread round-robin over BENCH_ENDPOINTS merchant endpoints (real HTTP receivers on
 * loopback, one server each), drained by the real dispatcher loop (`start`) through the SSRF-safe client.
 * Baseline, same run: every endpoint fast. Then one endpoint answers after BENCH_SLOW_MS: the figure is the time
 * until every OTHER endpoint's events are delivered, and the ratio to the baseline says whether the slow one held
 * them back (1.0 = not at all). Prints a table and writes bench/results/webhook-dispatch.json.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { createOutboundClient } from "@tollgate/outbound";
import { createOrRotateWebhookSecret, enqueueWebhookEvents } from "@tollgate/webhooks";
import { table, writeResults } from "./lib";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 100);
const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 5_000);
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
// The test-database helper reads TEST_DATABASE_URL when first imported: import it after this line.
if (PG_URL) process.env.TEST_DATABASE_URL = PG_URL;
const { account, createDispatcher, createTestDatabase, insertMerchant, quietLog } = await import(
  "@tollgate/indexer/testing"
);

const KEY = Buffer.alloc(32, 9);

interface Receiver {
  url: string;
  delivered: number;
  close(): Promise<void>;
}

async function receiver(delayMs: () => number): Promise<Receiver> {
  const state = { delivered: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      setTimeout(() => {
        state.delivered++;
        res.writeHead(204).end();
      }, delayMs());
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get delivered() {
      return state.delivered;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const settlement = (k: number) => ({
  chain_id: 80002,
  network: "amoy",
  tx_hash: `0x${k.toString(16).padStart(64, "0")}`,
  log_index: 0,
  block_number: "100",
  block_hash: `0x${"cd".repeat(32)}`,
  payer: account(10).address.toLowerCase(),
  merchant: account(18).address.toLowerCase(),
  token: "0x0000000000000000000000000000000000000000",
  total_amount: "1000",
  merchant_amount: "990",
  treasury_amount: "10",
  ip_creator_amount: "0",
  order_id: `qt_bench${k}`,
  quote_id: `qt_bench${k}`,
  quote_mismatch: null,
  state: "confirmed" as const,
  scheme: "splitter" as const,
  channel_id: null,
});

/** Seconds until every fast endpoint has all its events, with `slow` endpoints (index 0) answering slowly. */
async function drain(kind: "pglite" | "postgres", slow: boolean) {
  const handle = await createTestDatabase(kind);
  const receivers = await Promise.all(
    Array.from({ length: ENDPOINTS }, (_, k) => receiver(() => (slow && k === 0 ? SLOW_MS : 0))),
  );
  const merchantIds: string[] = [];
  for (const [k, r] of receivers.entries()) {
    const id = await insertMerchant(handle.db, account(k % 20).address, {
      id: `mrch_bench${k}`,
      webhookUrl: r.url,
    });
    await createOrRotateWebhookSecret(handle.db, KEY, id, new Date());
    merchantIds.push(id);
  }
  for (let i = 0; i < EVENTS; i += 1_000) {
    const chunk = Array.from({ length: Math.min(1_000, EVENTS - i) }, (_, j) => ({
      merchantId: merchantIds[(i + j) % ENDPOINTS]!,
      type: "settlement.confirmed" as const,
      data: settlement(i + j),
    }));
    await enqueueWebhookEvents(handle.db, chunk, new Date());
  }
  const fastTotal = receivers.reduce((sum, _, k) => sum + (slow && k === 0 ? 0 : countFor(k)), 0);
  const client = createOutboundClient({ allowLoopback: true, timeoutMs: SLOW_MS * 3 });
  const dispatcher = createDispatcher({
    db: handle.db,
    key: KEY,
    client,
    log: quietLog,
    timeoutMs: SLOW_MS * 3,
  });
  const started = performance.now();
  dispatcher.start(50);
  const fastDelivered = () => receivers.reduce((sum, r, k) => sum + (slow && k === 0 ? 0 : r.delivered), 0);
  while (fastDelivered() < fastTotal) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  const slowDelivered = slow ? receivers[0]!.delivered : 0;
  await dispatcher.stop();
  await client.close();
  await Promise.all(receivers.map((r) => r.close()));
  await handle.close();
  return { seconds, fastTotal, slowDelivered };
}

/** Events endpoint k receives under round-robin. */
function countFor(k: number): number {
  return Math.floor(EVENTS / ENDPOINTS) + (k < EVENTS % ENDPOINTS ? 1 : 0);
}

const kinds = PG_URL ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const rows: Record<string, string | number>[] = [];
const figures: Record<string, unknown> = { events: EVENTS, endpoints: ENDPOINTS, slow_ms: SLOW_MS };
console.log(
  `load average at start: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(" ")}`,
);
for (const kind of kinds) {
  const baseline = await drain(kind, false);
  const withSlow = await drain(kind, true);
  const ratio = withSlow.seconds / baseline.seconds;
  rows.push(
    {
      database: kind,
      run: "baseline: all endpoints fast",
      events: baseline.fastTotal,
      seconds: baseline.seconds,
      "events/s": baseline.fastTotal / baseline.seconds,
      ratio: 1,
    },
    {
      database: kind,
      run: `one endpoint ${SLOW_MS} ms per delivery (others only)`,
      events: withSlow.fastTotal,
      seconds: withSlow.seconds,
      "events/s": withSlow.fastTotal / withSlow.seconds,
      ratio,
    },
  );
  figures[kind] = {
    baseline_seconds: baseline.seconds,
    with_slow_seconds: withSlow.seconds,
    slow_endpoint_delivered_meanwhile: withSlow.slowDelivered,
    ratio_vs_baseline: ratio,
  };
}
console.log(table(rows));
console.log(`written ${writeResults("webhook-dispatch", figures)}`);
