/**
 * The batched quote writer (issue 15) on real PGlite (and PostgreSQL when TEST_DATABASE_URL is set): concurrent
 * rows share statements yet each is stored once, and a bad row is refused alone.
 */
import { type DatabaseHandle, merchants, quotes } from "@tollgate/db";
import { newId } from "@tollgate/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../test/harness";
import { createQuoteWriter, type QuoteRow } from "./quote-writer";

const MERCHANT = "mrch_2222222222222222";

function row(overrides: Partial<QuoteRow> = {}): QuoteRow {
  const at = new Date("2026-11-20T10:00:00.000Z");
  return {
    id: newId("quote"),
    merchantId: MERCHANT,
    resource: "/search",
    tier: "standard",
    payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
    units: 1,
    unitPriceMicroUsd: 100_000n,
    amountMicroUsd: 100_000n,
    network: "amoy",
    chainId: 80002,
    settlementVersion: "1.2",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    payTo: "0x52908400098527886e0f7030069857d2e4169ee7",
    asset: "USDC",
    token: "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0",
    decimals: 6,
    amountAtomic: "100000",
    merchantAmount: "99000",
    treasuryAmount: "1000",
    ipCreatorAmount: "0",
    economicsProfile: "aifp1-gross-inclusive-100-0-v1",
    settlementCall: {},
    expiresAt: new Date(at.getTime() + 600_000),
    createdAt: at,
    ...overrides,
  };
}

describe.each(testDatabaseKinds())("quote writer on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
    const now = new Date();
    await handle.db.insert(merchants).values({
      id: MERCHANT,
      name: "Acme",
      secretHash: "0".repeat(64),
      payTo: { evm: "0x52908400098527886e0f7030069857d2e4169ee7" },
      settlementVersion: "1.2",
      networkMode: "test",
      settlementChain: "amoy",
      createdAt: now,
      updatedAt: now,
      secretRotatedAt: now,
    });
  });
  afterAll(async () => {
    await handle?.close();
  });

  async function count(ids: string[]): Promise<number> {
    const rows = await handle.db.select({ id: quotes.id }).from(quotes);
    return rows.filter((r) => ids.includes(r.id)).length;
  }

  it("happy: 40 concurrent rows are all stored, each once, in fewer statements than rows", async () => {
    let statements = 0;
    const counting = new Proxy(handle.db, {
      get(target, key, receiver) {
        if (key === "insert") statements++;
        return Reflect.get(target, key, receiver);
      },
    });
    const writer = createQuoteWriter(counting, 16);
    const rows = Array.from({ length: 40 }, () => row());
    await Promise.all(rows.map((r) => writer.insert(r)));
    expect(await count(rows.map((r) => r.id))).toBe(40);
    // Batches of at most 16.
    expect(statements).toBe(3);
  });

  it("happy: rows of one event-loop turn share one statement, even with nothing in flight", async () => {
    let statements = 0;
    const counting = new Proxy(handle.db, {
      get(target, key, receiver) {
        if (key === "insert") statements++;
        return Reflect.get(target, key, receiver);
      },
    });
    const writer = createQuoteWriter(counting);
    const rows = Array.from({ length: 10 }, () => row());
    await Promise.all(rows.map((r) => writer.insert(r)));
    expect(await count(rows.map((r) => r.id))).toBe(10);
    expect(statements).toBe(1);
    // An idle writer still writes a lone row.
    const lone = row();
    await writer.insert(lone);
    expect(await count([lone.id])).toBe(1);
  });

  it("error: a bad row in a batch is refused alone; the others of its batch are stored", async () => {
    const writer = createQuoteWriter(handle.db);
    const taken = row();
    await writer.insert(taken);
    const good = [row(), row(), row()];
    const outcomes = await Promise.allSettled([
      writer.insert(row()), // one turn: all six go as one batch, refused, then row by row
      writer.insert(good[0]!),
      writer.insert({ ...row(), id: taken.id }), // duplicate primary key: one quote never makes two rows
      writer.insert(good[1]!),
      writer.insert({ ...row(), merchantId: "mrch_3333333333333333" }), // no such merchant
      writer.insert(good[2]!),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(await count(good.map((r) => r.id))).toBe(3);
    expect(await count([taken.id])).toBe(1);
  });
});
