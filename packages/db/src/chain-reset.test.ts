/**
 * resetLocalChainData (docs/decisions/0058): the rows derived from a local chain that was started anew go, in one
 * transaction; another chain's rows, quotes and merchants stay; the daily rollup follows the deleted settlements.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAIN_RESET_ACTOR, resetLocalChainData } from "./chain-reset";
import type { DatabaseHandle } from "./client";
import {
  bridgeUnservedPayments,
  failedPaymentResolutions,
  indexerBlocks,
  indexerCursors,
  merchants,
  networkHalts,
  quotes,
  receiptStateChanges,
  receipts,
  settlementDailyRollups,
  settlements,
} from "./schema";
import { createTestDatabase, testDatabaseKinds, testDatabaseServersFrom } from "./testing";

const servers = testDatabaseServersFrom(process.env);
const AMOY = 80002;
const POLYGON = 137;
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

describe.each(testDatabaseKinds(servers))("resetLocalChainData on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind, servers);
    const now = new Date();
    await handle.db.insert(merchants).values({
      id: "mrch_reset",
      name: "Reset",
      secretHash: "cd",
      payTo: { evm: "0x0000000000000000000000000000000000000002" },
      settlementVersion: "1.2",
      networkMode: "test",
      settlementChain: "amoy",
      createdAt: now,
      updatedAt: now,
      secretRotatedAt: now,
    });
    for (const [k, chainId] of [AMOY, POLYGON].entries()) await seedChain(handle, chainId, k + 1, now);
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("forgets one chain's payments, receipts, cursor, blocks and halts, and leaves the other chain alone", async () => {
    const counts = await resetLocalChainData(handle.db, [AMOY]);
    expect(counts).toEqual({
      settlements: 1,
      receipts: 1,
      bridgeUnservedPayments: 1,
      haltsClosed: 1,
      cursors: 1,
    });
    const db = handle.db;
    const byChain = async (table: typeof settlements | typeof receipts | typeof bridgeUnservedPayments) =>
      (await db.select({ chainId: table.chainId }).from(table)).map((r) => r.chainId);
    expect(await byChain(settlements)).toEqual([POLYGON]);
    expect(await byChain(receipts)).toEqual([POLYGON]);
    expect(await byChain(bridgeUnservedPayments)).toEqual([POLYGON]);
    expect((await db.select().from(indexerCursors)).map((r) => r.chainId)).toEqual([POLYGON]);
    expect((await db.select().from(indexerBlocks)).map((r) => r.chainId)).toEqual([POLYGON, POLYGON]);
    expect((await db.select().from(receiptStateChanges)).map((r) => r.chainId)).toEqual([POLYGON]);
    expect(await db.select().from(failedPaymentResolutions)).toHaveLength(1);
    // The rollup follows the deleted settlement (its trigger): no amoy figures remain.
    const rollups = await db
      .select({ chainId: settlementDailyRollups.chainId, count: settlementDailyRollups.settlements })
      .from(settlementDailyRollups)
      .where(sql`${settlementDailyRollups.settlements} > 0`);
    expect(rollups).toEqual([{ chainId: POLYGON, count: 1 }]);
    const [halt] = await db.select().from(networkHalts).where(eq(networkHalts.chainId, AMOY));
    expect(halt).toMatchObject({ resumedBy: CHAIN_RESET_ACTOR });
    expect(halt!.resumedAt).toBeInstanceOf(Date);
    // Acted on already: the indexer must not try to re-anchor a cursor that no longer exists.
    expect(halt!.reanchoredAt).toBeInstanceOf(Date);
    expect(halt!.reanchorOrphaned).toBe(0);
    const [open] = await db.select().from(networkHalts).where(eq(networkHalts.chainId, POLYGON));
    expect(open!.resumedAt).toBeNull();
    // Quotes and merchants are not chain data.
    expect(await db.select({ id: quotes.id }).from(quotes)).toHaveLength(2);
    expect(await db.select({ id: merchants.id }).from(merchants)).toHaveLength(1);
    // Again: nothing left to reset.
    expect(await resetLocalChainData(handle.db, [AMOY])).toEqual({
      settlements: 0,
      receipts: 0,
      bridgeUnservedPayments: 0,
      haltsClosed: 0,
      cursors: 0,
    });
  });
});

/** One paid quote with its receipt and state history, a settlement with a resolution, an unserved bridge order,
 * the cursor, two indexed blocks and an open halt on `chainId`. */
async function seedChain(handle: DatabaseHandle, chainId: number, k: number, now: Date): Promise<void> {
  const db = handle.db;
  const network = chainId === AMOY ? "amoy" : "polygon";
  const common = {
    chainId,
    txHash: hash(k),
    logIndex: 0,
    blockNumber: 10n,
    blockHash: hash(100 + k),
  };
  await db.insert(quotes).values({
    id: `qt_reset${k}`,
    merchantId: "mrch_reset",
    resource: "/r",
    tier: "default",
    payer: "0x0000000000000000000000000000000000000009",
    units: 1,
    unitPriceMicroUsd: 1000n,
    amountMicroUsd: 1000n,
    network,
    chainId,
    settlementVersion: "1.2",
    splitter: "0x0000000000000000000000000000000000000005",
    payTo: "0x0000000000000000000000000000000000000002",
    asset: "USDC",
    token: "0x0000000000000000000000000000000000000006",
    decimals: 6,
    amountAtomic: "1000",
    merchantAmount: "990",
    treasuryAmount: "10",
    ipCreatorAmount: "0",
    economicsProfile: "legacy",
    settlementCall: {},
    expiresAt: now,
    createdAt: now,
  });
  await db.insert(receipts).values({
    id: `rcpt_reset${k}`,
    quoteId: `qt_reset${k}`,
    merchantId: "mrch_reset",
    payer: "0x0000000000000000000000000000000000000009",
    confirmations: 1,
    quota: 1,
    kid: "k1",
    token: "jwt",
    issuedAt: now,
    expiresAt: now,
    ...common,
  });
  await db.insert(receiptStateChanges).values({
    receiptId: `rcpt_reset${k}`,
    fromState: "valid",
    toState: "suspended",
    reason: "payment_orphaned",
    at: now,
    ...common,
  });
  const [settlement] = await db
    .insert(settlements)
    .values({
      network,
      splitter: "0x0000000000000000000000000000000000000005",
      splitterVersion: "v1.2",
      payer: "0x0000000000000000000000000000000000000009",
      merchantAddress: "0x0000000000000000000000000000000000000002",
      token: "0x0000000000000000000000000000000000000006",
      totalAmount: "1000",
      merchantAmount: "990",
      treasuryAmount: "10",
      ipCreatorAmount: "0",
      orderId: `qt_reset${k}`,
      state: "final",
      seenAt: now,
      updatedAt: now,
      ...common,
    })
    .returning({ id: settlements.id });
  await db.insert(failedPaymentResolutions).values({
    settlementId: settlement!.id,
    kind: "reverted",
    resolution: "dismissed",
    note: "test",
    resolvedBy: "adm_1",
    resolvedAt: now,
  });
  await db.insert(bridgeUnservedPayments).values({
    orderId: `ord_reset${k}`,
    provider: "demo",
    network,
    chainId,
    txHash: hash(k),
    logIndex: 1,
    payer: "0x0000000000000000000000000000000000000009",
    merchantAddress: "0x0000000000000000000000000000000000000002",
    token: "0x0000000000000000000000000000000000000006",
    totalAmount: "1000",
    lastError: "upstream_error",
    attempts: 1,
    firstFailedAt: now,
    lastFailedAt: now,
    replayableUntil: now,
  });
  await db
    .insert(indexerCursors)
    .values({ chainId, network, blockNumber: 10n, blockHash: hash(100 + k), updatedAt: now });
  await db.insert(indexerBlocks).values([
    { chainId, number: 9n, hash: hash(200 + k), parentHash: hash(300 + k) },
    { chainId, number: 10n, hash: hash(100 + k), parentHash: hash(200 + k) },
  ]);
  await db
    .insert(networkHalts)
    .values({ chainId, network, reason: "reorg_too_deep", blockNumber: 10n, haltedAt: now });
}
