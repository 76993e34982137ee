import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "./client";
import { merchants, merchantTiers } from "./schema";
import { createTestDatabase, testDatabaseKinds, testDatabaseServersFrom } from "./testing";

// Test setup: the one place here that reads which servers this run has.
const servers = testDatabaseServersFrom(process.env);

describe.each(testDatabaseKinds(servers))("database on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind, servers);
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("applies migrations idempotently", async () => {
    await handle.migrate();
    await handle.ping();
  });

  it("round-trips a merchant with bigint tier prices and cascades deletes", async () => {
    const now = new Date();
    await handle.db.insert(merchants).values({
      id: "mrch_test1",
      name: "Test",
      secretHash: "ab",
      payTo: { evm: "0x0000000000000000000000000000000000000002" },
      settlementVersion: "1.2",
      networkMode: "live",
      settlementChain: "polygon",
      createdAt: now,
      updatedAt: now,
      secretRotatedAt: now,
    });
    await handle.db
      .insert(merchantTiers)
      .values({ merchantId: "mrch_test1", tier: "standard", unitPriceMicroUsd: 9_007_199_254_740_993n });
    const [tier] = await handle.db
      .select()
      .from(merchantTiers)
      .where(eq(merchantTiers.merchantId, "mrch_test1"));
    expect(tier?.unitPriceMicroUsd).toBe(9_007_199_254_740_993n);
    await handle.db.delete(merchants).where(eq(merchants.id, "mrch_test1"));
    expect(await handle.db.select().from(merchantTiers)).toHaveLength(0);
  });

  it("refuses ids without the merchant prefix and non-positive prices", async () => {
    const now = new Date();
    const row = {
      name: "Test",
      secretHash: "cd",
      payTo: {},
      settlementVersion: "1.2" as const,
      networkMode: "live" as const,
      settlementChain: "polygon" as const,
      createdAt: now,
      updatedAt: now,
      secretRotatedAt: now,
    };
    await expect(handle.db.insert(merchants).values({ ...row, id: "merchant1" })).rejects.toThrow();
    await handle.db.insert(merchants).values({ ...row, id: "mrch_x" });
    await expect(
      handle.db.insert(merchantTiers).values({ merchantId: "mrch_x", tier: "a", unitPriceMicroUsd: 0n }),
    ).rejects.toThrow();
  });
});
