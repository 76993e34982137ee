/**
 * Receipts follow their payment (docs/receipts.md) and settlements link only the quote they pay (quote-link.ts),
 * on a real local chain: evm_snapshot / evm_revert orphan the payment's block, the identical signed
 * transaction is re-sent (re-mined) or not.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LocalChain, LocalChains } from "@tollgate/contracts/local-chains";
import {
  type DatabaseHandle,
  quotes,
  receiptStateChanges,
  receipts,
  settlements,
  webhookEvents,
} from "@tollgate/db";
import { createOutboundClient } from "@tollgate/outbound";
import { PAYMENT_EVENT_ABI } from "@tollgate/shared/contracts";
import { createOrRotateWebhookSecret } from "@tollgate/webhooks";
import { asc, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createPublicClient, custom, decodeEventLog, type Hash } from "viem";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { NetworkConfig } from "../src/config";
import { ReorgTooDeepError } from "../src/reorg/reorg";
import { createRpc } from "../src/rpc/rpc";
import { newSyncState, syncStep } from "../src/sync/sync-step";
import { createDispatcher } from "../src/webhooks/dispatcher";
import {
  account,
  chainOf,
  configFor,
  insertMerchant,
  mine,
  pay,
  quietLog,
  requestOf,
  revert,
  sendRaw,
  signPayment,
  snapshot,
  startChains,
} from "./helpers";
import { createTestDatabase, testDatabaseKinds } from "./test-databases";

let chains: LocalChains;
let chain: LocalChain;
const MERCHANT = account(17).address;
const now = () => new Date("2026-01-01T00:00:00Z");
const EXPIRES = new Date("2026-01-02T00:00:00Z");

// A loopback webhook receiver: every delivery is checked with the published `standardwebhooks` package.
let receiver: http.Server;
let hookUrl: string;
let received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
beforeAll(async () => {
  chains = await startChains(["amoy"]);
  chain = chainOf(chains, "amoy");
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await chains.stop();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const KEY = Buffer.alloc(32, 9);

/** Delivers the outbox to the receiver and returns the receipt.* envelopes, each verified by standardwebhooks. */
async function deliverReceiptEvents(handle: DatabaseHandle, secret: string) {
  received = [];
  const client = createOutboundClient({ allowLoopback: true, timeoutMs: 2_000 });
  try {
    const dispatcher = createDispatcher({ db: handle.db, key: KEY, client, log: quietLog, now });
    // Up to the per-endpoint cap each round: drain until nothing is due.
    for (let k = 0; k < 20 && (await dispatcher.runOnce()).attempted > 0; k++);
  } finally {
    await client.close();
  }
  vi.setSystemTime(now());
  try {
    return received
      .map(
        (r) =>
          new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
            type: string;
            data: Record<string, unknown>;
          },
      )
      .filter((e) => e.type.startsWith("receipt."));
  } finally {
    vi.useRealTimers();
  }
}

async function indexAll(handle: DatabaseHandle, cfg: NetworkConfig) {
  const rpc = createRpc(requestOf(chain));
  const state = newSyncState(cfg);
  for (let k = 0; k < 1000; k++) {
    const r = await syncStep(handle.db, rpc, cfg, state, { now });
    if (r.kind === "idle") return;
  }
  throw new Error("did not converge");
}

async function waitMined(hash: Hash) {
  const client = createPublicClient({ transport: custom(chain.provider) });
  return client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
}

/**
 * What /v1/pay writes after verifying the log: a quote for exactly the amounts the splitter emitted, and a
 * receipt resting on that log. (The indexer tests cannot import the API; the rows are the API's schema.)
 */
async function quoteAndReceipt(
  handle: DatabaseHandle,
  merchantId: string,
  quoteId: string,
  hash: Hash,
  overrides: { merchantAmount?: string; victimQuoteId?: string } = {},
) {
  const mined = await waitMined(hash);
  const log = mined.logs.find(
    (l) => l.address.toLowerCase() === chain.deployment.splitterV12.address.toLowerCase(),
  )!;
  const { args } = decodeEventLog({ abi: [PAYMENT_EVENT_ABI], data: log.data, topics: log.topics });
  const quoteRow: typeof quotes.$inferInsert = {
    id: quoteId,
    merchantId,
    resource: "/v1/search",
    tier: "standard",
    payer: args.payer,
    units: 10,
    unitPriceMicroUsd: 10_000n,
    amountMicroUsd: 100_000n,
    network: "amoy",
    chainId: chain.chainId,
    settlementVersion: "1.2",
    splitter: chain.deployment.splitterV12.address,
    payTo: MERCHANT,
    asset: "POL",
    token: null,
    decimals: 18,
    amountAtomic: args.totalAmount.toString(),
    merchantAmount: overrides.merchantAmount ?? args.merchantAmount.toString(),
    treasuryAmount: args.treasuryAmount.toString(),
    ipCreatorAmount: args.ipCreatorAmount.toString(),
    economicsProfile: "standard",
    settlementCall: {},
    expiresAt: EXPIRES,
    createdAt: now(),
  };
  await handle.db.insert(quotes).values(quoteRow);
  // A second quote for the same amounts, not paid by this log (another payer's quote, say).
  if (overrides.victimQuoteId)
    await handle.db.insert(quotes).values({ ...quoteRow, id: overrides.victimQuoteId });
  const receiptId = `rcpt_${quoteId.slice(3)}`;
  await handle.db.insert(receipts).values({
    id: receiptId,
    quoteId,
    merchantId,
    payer: args.payer,
    chainId: chain.chainId,
    txHash: hash.toLowerCase(),
    logIndex: log.logIndex,
    blockNumber: mined.blockNumber,
    blockHash: mined.blockHash,
    confirmations: 1,
    quota: 10,
    kid: "k1",
    token: "header.payload.signature",
    issuedAt: now(),
    expiresAt: EXPIRES,
  });
  return { receiptId, blockNumber: mined.blockNumber, blockHash: mined.blockHash };
}

const receiptOf = async (h: DatabaseHandle, id: string) =>
  (await h.db.select().from(receipts).where(eq(receipts.id, id)))[0]!;
const historyOf = (h: DatabaseHandle, id: string) =>
  h.db
    .select()
    .from(receiptStateChanges)
    .where(eq(receiptStateChanges.receiptId, id))
    .orderBy(asc(receiptStateChanges.id));
const eventsOf = async (h: DatabaseHandle) =>
  (await h.db.select().from(webhookEvents).orderBy(asc(webhookEvents.createdAt))).filter((e) =>
    e.type.startsWith("receipt."),
  );

describe.each(testDatabaseKinds())("receipt states on %s", (kind) => {
  let handle: DatabaseHandle;
  let outer: string;
  let merchantId: string;
  let secret: string;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    outer = await snapshot(chain);
    merchantId = await insertMerchant(handle.db, MERCHANT, { webhookUrl: hookUrl });
    ({ secret } = await createOrRotateWebhookSecret(handle.db, KEY, merchantId, now()));
  });
  afterEach(async () => {
    await revert(chain, outer);
    await handle.close();
  });

  it("re-mined: suspended when the block is orphaned, then reinstated on the new log, with no second receipt", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 8 });
    await mine(chain, 2);
    const fork = await snapshot(chain);
    const raw = await signPayment(chain, 10, MERCHANT, "qt_remined111111");
    const hash = await sendRaw(chain, raw);
    const paid = await quoteAndReceipt(handle, merchantId, "qt_remined111111", hash);
    await indexAll(handle, cfg);
    const [linked] = await handle.db.select().from(settlements);
    expect(linked).toMatchObject({ quoteId: "qt_remined111111", quoteMismatch: null });
    expect(await receiptOf(handle, paid.receiptId)).toMatchObject({ state: "valid" });

    // The block is orphaned and the transaction is not back yet: suspended.
    await revert(chain, fork);
    await mine(chain, 2);
    await indexAll(handle, cfg);
    const suspended = await receiptOf(handle, paid.receiptId);
    expect(suspended).toMatchObject({
      state: "suspended",
      blockHash: paid.blockHash,
      revokeAfterBlock: paid.blockNumber - 1n + 8n,
    });

    // The same signed transaction is mined again on the new chain: valid, linked to the new block.
    expect(await sendRaw(chain, raw)).toBe(hash);
    const remined = await waitMined(hash);
    await indexAll(handle, cfg);
    const back = await receiptOf(handle, paid.receiptId);
    expect(back).toMatchObject({
      state: "valid",
      revokeAfterBlock: null,
      txHash: hash.toLowerCase(),
      blockNumber: remined.blockNumber,
      blockHash: remined.blockHash,
    });
    expect(back.blockHash).not.toBe(paid.blockHash);
    expect(await handle.db.select().from(receipts)).toHaveLength(1);
    expect((await historyOf(handle, paid.receiptId)).map((c) => [c.fromState, c.toState, c.reason])).toEqual([
      ["valid", "suspended", "payment_orphaned"],
      ["suspended", "valid", "payment_remined"],
    ]);
    const events = await eventsOf(handle);
    expect(events.map((e) => e.type)).toEqual(["receipt.suspended", "receipt.reinstated"]);
    expect(events[0]!.payload).toMatchObject({
      receipt_id: paid.receiptId,
      state: "suspended",
      previous_state: "valid",
      reason: "payment_orphaned",
      block_hash: paid.blockHash,
    });
    expect(events[1]!.payload).toMatchObject({
      state: "valid",
      previous_state: "suspended",
      reason: "payment_remined",
      block_number: remined.blockNumber.toString(),
      block_hash: remined.blockHash,
    });
    const delivered = await deliverReceiptEvents(handle, secret);
    expect(delivered.map((e) => [e.type, e.data.receipt_id]).sort()).toEqual([
      ["receipt.reinstated", paid.receiptId],
      ["receipt.suspended", paid.receiptId],
    ]);
  });

  it("not re-mined: suspended, then revoked once the reorg window has passed without it", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 4 });
    await mine(chain, 2);
    const fork = await snapshot(chain);
    const hash = await sendRaw(chain, await signPayment(chain, 11, MERCHANT, "qt_revoked111111"));
    const paid = await quoteAndReceipt(handle, merchantId, "qt_revoked111111", hash);
    await indexAll(handle, cfg);

    await revert(chain, fork);
    await mine(chain, 2);
    await indexAll(handle, cfg);
    expect(await receiptOf(handle, paid.receiptId)).toMatchObject({ state: "suspended" });

    await mine(chain, 4);
    await indexAll(handle, cfg);
    expect(await receiptOf(handle, paid.receiptId)).toMatchObject({
      state: "revoked",
      revokeAfterBlock: null,
    });
    expect((await historyOf(handle, paid.receiptId)).map((c) => [c.fromState, c.toState, c.reason])).toEqual([
      ["valid", "suspended", "payment_orphaned"],
      ["suspended", "revoked", "reorg_window_closed"],
    ]);
    expect((await eventsOf(handle)).map((e) => e.type)).toEqual(["receipt.suspended", "receipt.revoked"]);
    const delivered = await deliverReceiptEvents(handle, secret);
    expect(delivered.map((e) => [e.type, e.data.state, e.data.reason]).sort()).toEqual([
      ["receipt.revoked", "revoked", "reorg_window_closed"],
      ["receipt.suspended", "suspended", "payment_orphaned"],
    ]);
  });

  it("a receipt whose block was orphaned before the indexer reached it is suspended, then revoked", async () => {
    // The API verifies on its own RPC, so it can issue a receipt for a block the indexer has not indexed yet
    // (lagging, restarting); the indexer then never sees the old hash, so no reorg is detected at its cursor.
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 4 });
    await mine(chain, 2);
    await indexAll(handle, cfg);
    const fork = await snapshot(chain);
    const hash = await sendRaw(chain, await signPayment(chain, 16, MERCHANT, "qt_unseen1111111"));
    const paid = await quoteAndReceipt(handle, merchantId, "qt_unseen1111111", hash);
    await revert(chain, fork);
    await mine(chain, 2);
    await indexAll(handle, cfg);
    expect(await receiptOf(handle, paid.receiptId)).toMatchObject({
      state: "suspended",
      blockHash: paid.blockHash,
      revokeAfterBlock: paid.blockNumber - 1n + 4n,
    });
    await mine(chain, 4);
    await indexAll(handle, cfg);
    expect((await historyOf(handle, paid.receiptId)).map((c) => [c.fromState, c.toState, c.reason])).toEqual([
      ["valid", "suspended", "payment_orphaned"],
      ["suspended", "revoked", "reorg_window_closed"],
    ]);
    expect((await eventsOf(handle)).map((e) => e.type)).toEqual(["receipt.suspended", "receipt.revoked"]);
  });

  it("a reorg deeper than the window halts the network: the receipt is neither suspended nor revoked", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1, maxReorgDepth: 2 });
    const fork = await snapshot(chain);
    const hash = await sendRaw(chain, await signPayment(chain, 12, MERCHANT, "qt_deepreorg1111"));
    const paid = await quoteAndReceipt(handle, merchantId, "qt_deepreorg1111", hash);
    await mine(chain, 3);
    await indexAll(handle, cfg);
    await revert(chain, fork);
    await mine(chain, 6);
    await expect(
      syncStep(handle.db, createRpc(requestOf(chain)), cfg, newSyncState(cfg), { now }),
    ).rejects.toBeInstanceOf(ReorgTooDeepError);
    expect(await receiptOf(handle, paid.receiptId)).toMatchObject({ state: "valid", stateChangedAt: null });
    expect(await historyOf(handle, paid.receiptId)).toEqual([]);
    expect(await eventsOf(handle)).toEqual([]);
  });

  it("a log naming a quote it does not pay is delivered with quote_id null and quote_mismatch", async () => {
    const cfg = configFor(chains, "amoy", { confirmations: 1 });
    // A 100-wei payment that names a victim's quote (same amounts as a real quote paid below).
    const cheap = await pay(chain, 14, MERCHANT, "qt_mismatch11111", 100n);
    const hash = await sendRaw(chain, await signPayment(chain, 13, MERCHANT, "qt_mismatch33333"));
    await quoteAndReceipt(handle, merchantId, "qt_mismatch33333", hash, {
      victimQuoteId: "qt_mismatch11111",
    });
    // A quote whose merchant leg differs from what the splitter paid.
    const other = await sendRaw(chain, await signPayment(chain, 15, MERCHANT, "qt_mismatch22222"));
    await quoteAndReceipt(handle, merchantId, "qt_mismatch22222", other, { merchantAmount: "1" });
    await indexAll(handle, cfg);
    const rows = await handle.db.select().from(settlements);
    const byTx = new Map(rows.map((r) => [r.txHash, r]));
    expect(byTx.get(hash.toLowerCase())).toMatchObject({ quoteId: "qt_mismatch33333", quoteMismatch: null });
    expect(byTx.get(cheap.toLowerCase())).toMatchObject({
      quoteId: null,
      orderId: "qt_mismatch11111",
      quoteMismatch: { quote_id: "qt_mismatch11111", reason: "amount_mismatch" },
    });
    expect(byTx.get(other.toLowerCase())).toMatchObject({
      quoteId: null,
      quoteMismatch: { quote_id: "qt_mismatch22222", reason: "amount_mismatch" },
    });
    const confirmed = (await handle.db.select().from(webhookEvents)).filter(
      (e) => e.type === "settlement.confirmed",
    );
    const payloads = new Map(confirmed.map((e) => [(e.payload as { tx_hash: string }).tx_hash, e.payload]));
    expect(payloads.get(cheap.toLowerCase())).toMatchObject({
      quote_id: null,
      quote_mismatch: { quote_id: "qt_mismatch11111", reason: "amount_mismatch" },
    });
    expect(payloads.get(hash.toLowerCase())).toMatchObject({
      quote_id: "qt_mismatch33333",
      quote_mismatch: null,
    });
  });
});
