/**
 * The dispatcher's running loop is a pool: a slow endpoint holds only its own per-endpoint slots, and
 * every other merchant's deliveries keep flowing past it. Real HTTP receivers on loopback, real database; the slow
 * receiver holds its answers until the test releases them, so nothing here depends on timing.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type DatabaseHandle, webhookDeliveries } from "@tollgate/db";
import { createOutboundClient, type OutboundClient } from "@tollgate/outbound";
import {
  createOrRotateWebhookSecret,
  enqueueWebhookEvents,
  type SettlementEventData,
} from "@tollgate/webhooks";
import { and, count, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDispatcher, type Dispatcher } from "../src/webhooks/dispatcher";
import { account, insertMerchant, quietLog } from "./helpers";
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

const KEY = Buffer.alloc(32, 7);

interface Receiver {
  url: string;
  hits: number;
  close(): Promise<void>;
}

/** A receiver answering 204; `hold` keeps every answer back until `release()`. */
async function receiver(hold = false): Promise<Receiver & { release(): void }> {
  const held: http.ServerResponse[] = [];
  let released = !hold;
  const state = { hits: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      state.hits++;
      if (released) res.writeHead(204).end();
      else held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get hits() {
      return state.hits;
    },
    release() {
      released = true;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const settlement = (k: number): SettlementEventData => ({
  chain_id: 80002,
  network: "amoy",
  tx_hash: `0x${"ab".repeat(32)}`,
  log_index: k,
  block_number: "100",
  block_hash: `0x${"cd".repeat(32)}`,
  payer: account(10).address.toLowerCase(),
  merchant: account(18).address.toLowerCase(),
  token: "0x0000000000000000000000000000000000000000",
  total_amount: "1000",
  merchant_amount: "990",
  treasury_amount: "10",
  ip_creator_amount: "0",
  order_id: `qt_pool${k}`,
  quote_id: `qt_pool${k}`,
  quote_mismatch: null,
  state: "confirmed",
  scheme: "splitter",
  channel_id: null,
});

describe.each(testDatabaseKinds())("dispatcher pool on %s", (kind) => {
  let handle: DatabaseHandle;
  let client: OutboundClient;
  let slow: Awaited<ReturnType<typeof receiver>>;
  let fast: Awaited<ReturnType<typeof receiver>>;
  let dispatcher: Dispatcher | undefined;

  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    client = createOutboundClient({ allowLoopback: true, timeoutMs: 120_000 });
    slow = await receiver(true);
    fast = await receiver();
  });
  afterEach(async () => {
    slow.release();
    await dispatcher?.stop();
    dispatcher = undefined;
    await client.close();
    await Promise.all([slow.close(), fast.close()]);
    await handle.close();
  });

  async function merchantWithEndpoint(url: string, index: number): Promise<string> {
    const id = await insertMerchant(handle.db, account(index).address, { webhookUrl: url });
    await createOrRotateWebhookSecret(handle.db, KEY, id, new Date());
    return id;
  }

  const delivered = async (merchantId: string) =>
    (
      await handle.db
        .select({ n: count() })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.merchantId, merchantId), eq(webhookDeliveries.status, "delivered")))
    )[0]!.n;

  it("a slow endpoint holds only its own slots: the others are all delivered while it still hangs", async () => {
    const slowId = await merchantWithEndpoint(slow.url, 16);
    const fastId = await merchantWithEndpoint(fast.url, 17);
    // The slow merchant's events are the oldest, so every claim of the old batch loop started with them.
    const at = new Date();
    await enqueueWebhookEvents(
      handle.db,
      Array.from({ length: 20 }, (_, k) => ({
        merchantId: slowId,
        type: "settlement.confirmed" as const,
        data: settlement(k),
      })),
      new Date(at.getTime() - 1_000),
    );
    await enqueueWebhookEvents(
      handle.db,
      Array.from({ length: 40 }, (_, k) => ({
        merchantId: fastId,
        type: "settlement.confirmed" as const,
        data: settlement(100 + k),
      })),
      at,
    );
    dispatcher = createDispatcher({
      db: handle.db,
      key: KEY,
      client,
      log: quietLog,
      batchSize: 10,
      concurrencyPerEndpoint: 4,
      timeoutMs: 120_000,
    });
    dispatcher.start(20);

    await expect.poll(() => delivered(fastId), { timeout: 120_000, interval: 100 }).toBe(40);
    // Meanwhile the slow endpoint never had more than its 4 slots, and none of them finished.
    expect(slow.hits).toBe(4);
    expect(await delivered(slowId)).toBe(0);

    slow.release();
    await expect.poll(() => delivered(slowId), { timeout: 120_000, interval: 100 }).toBe(20);
    expect(fast.hits).toBe(40);
    expect(slow.hits).toBe(20);
  }, 300_000);

  it("stop() waits for deliveries in flight and claims nothing after", async () => {
    const slowId = await merchantWithEndpoint(slow.url, 16);
    await enqueueWebhookEvents(
      handle.db,
      Array.from({ length: 8 }, (_, k) => ({
        merchantId: slowId,
        type: "settlement.confirmed" as const,
        data: settlement(k),
      })),
      new Date(),
    );
    dispatcher = createDispatcher({
      db: handle.db,
      key: KEY,
      client,
      log: quietLog,
      concurrencyPerEndpoint: 2,
      timeoutMs: 120_000,
    });
    // One pump claims the endpoint's 2 slots; a long poll interval keeps a later pump from being mid-claim when
    // stop() is called (such a claim, begun before the stop, would be delivered and awaited: nothing lost, but
    // this test counts deliveries claimed before the stop only).
    dispatcher.start(60_000);
    await expect.poll(() => slow.hits, { timeout: 120_000, interval: 50 }).toBe(2);
    const stopping = dispatcher.stop();
    dispatcher = undefined;
    slow.release();
    await stopping;
    expect(await delivered(slowId)).toBe(2);
    expect(slow.hits).toBe(2);
  }, 300_000);
});
