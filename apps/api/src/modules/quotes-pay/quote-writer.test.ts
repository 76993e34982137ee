/**
 * The batched quote writer on real PGlite (and PostgreSQL when TEST_DATABASE_URL is set): concurrent
 * rows share statements yet each is stored once, and a bad row is refused alone.
 */
import { type DatabaseHandle, merchants, quotes } from "@tollgate/db";
import { newId } from "@tollgate/shared";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";
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
    const statements: number[] = [];
    const writer = createQuoteWriter(handle.db, { maxBatch: 16, onStatement: (n) => statements.push(n) });
    const rows = Array.from({ length: 40 }, () => row());
    await Promise.all(rows.map((r) => writer.insert(r)));
    expect(await count(rows.map((r) => r.id))).toBe(40);
    // Batches of at most 16.
    expect(statements).toEqual([16, 16, 8]);
  });

  it("happy: rows of one event-loop turn share one statement, even with nothing in flight", async () => {
    const statements: number[] = [];
    const writer = createQuoteWriter(handle.db, { onStatement: (n) => statements.push(n) });
    const rows = Array.from({ length: 10 }, () => row());
    await Promise.all(rows.map((r) => writer.insert(r)));
    expect(await count(rows.map((r) => r.id))).toBe(10);
    expect(statements).toEqual([10]);
    // An idle writer still writes a lone row.
    const lone = row();
    await writer.insert(lone);
    expect(await count([lone.id])).toBe(1);
  });

  it("happy: up to maxInFlight statements are in flight at once; rows past that wait and go together", async () => {
    /** Writes rows A, B, C in three turns while the table is held by another transaction (nothing can commit). */
    async function whileHeld(maxInFlight: number): Promise<{ held: number[]; after: number[] }> {
      const statements: number[] = [];
      const writer = createQuoteWriter(handle.db, { maxInFlight, onStatement: (n) => statements.push(n) });
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = handle.db.transaction(async (tx) => {
        await tx.execute(sql`lock table quotes in exclusive mode`);
        locked();
        await gate;
      });
      await isLocked;
      const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
      const rows = [row(), row(), row()];
      const written: Promise<void>[] = [];
      for (const r of rows) {
        written.push(writer.insert(r));
        await turn();
        await turn();
      }
      const held = [...statements];
      release();
      await holder;
      await Promise.all(written);
      expect(await count(rows.map((r) => r.id))).toBe(3);
      return { held, after: statements };
    }
    // One in flight: B and C wait for A, then share one statement.
    expect(await whileHeld(1)).toEqual({ held: [1], after: [1, 2] });
    // Three in flight: each went at the end of its own turn.
    expect(await whileHeld(3)).toEqual({ held: [1, 1, 1], after: [1, 1, 1] });
  });

  it("happy: a row stored by the writer reads back exactly as one stored by drizzle's builder (NULLs stay SQL NULL)", async () => {
    const writer = createQuoteWriter(handle.db);
    const rated = {
      rate: { pair: "POL/USD", price: "0.512345", updated_at: "2026-11-20T09:59:00.000Z" },
      settlementCall: { to: "0xabc", args: [1, "x", { nested: true }], note: "ünïcode \u2028" },
      token: null,
      amountAtomic: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
      unitPriceMicroUsd: 9_007_199_254_740_993n,
    };
    for (const overrides of [{}, rated, { rate: null, token: null }, { rate: undefined, token: undefined }]) {
      const mine = row(overrides);
      const theirs = row(overrides);
      await Promise.all([writer.insert(mine), writer.insert(row(overrides))]);
      await handle.db.insert(quotes).values(theirs);
      const [a] = await handle.db.select().from(quotes).where(eq(quotes.id, mine.id));
      const [b] = await handle.db.select().from(quotes).where(eq(quotes.id, theirs.id));
      expect({ ...a, id: "" }).toEqual({ ...b, id: "" });
      const nulls = await handle.db
        .select({ rate: sql<boolean>`${quotes.rate} is null`, token: sql<boolean>`${quotes.token} is null` })
        .from(quotes)
        .where(inArray(quotes.id, [mine.id, theirs.id]));
      expect(nulls[0]).toEqual(nulls[1]);
    }
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
