/**
 * Settlements recorded before their merchant registered: the indexer stores them with `merchant_id`
 * null; the registration links them in its own transaction, and so does a payout-address change (through
 * `linkUnattributedSettlements`, which every write of `pay_to.evm` calls). Rows of another merchant stay theirs.
 */
import { merchants, settlements } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OTHER_EVM, startTestApi, storageDatabaseKinds, type TestApi, VALID_EVM } from "../../test/harness";
import { registerMerchant, settlementRow } from "../operators/testing";
import { linkUnattributedSettlements } from "./merchant-service";

describe.each(storageDatabaseKinds("postgres"))(
  "linking earlier settlements to their merchant on %s",
  (kind) => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi(kind, { RATE_LIMIT_REGISTRATIONS_PER_HOUR: "1000" });
    });
    afterAll(async () => {
      await api?.close();
    });
    beforeEach(async () => {
      await api.deps.db.db.delete(settlements);
    });
    const owners = async () =>
      (await api.deps.db.db.select().from(settlements).orderBy(settlements.blockNumber)).map(
        (row) => row.merchantId,
      );

    it("registration links the unattributed settlements paid to its EVM address, and only those", async () => {
      const earlier = await registerMerchant(api, { pay_to: { evm: OTHER_EVM } });
      await api.deps.db.db.insert(settlements).values([
        settlementRow(1, { merchantId: null, merchantAddress: VALID_EVM.toLowerCase() }),
        settlementRow(2, { merchantId: null, merchantAddress: VALID_EVM.toLowerCase() }),
        settlementRow(3, { merchantId: null, merchantAddress: "0x000000000000000000000000000000000000dead" }),
        // Already someone's (e.g. linked when another merchant used this address): never reassigned.
        settlementRow(4, { merchantId: earlier.id, merchantAddress: VALID_EVM.toLowerCase() }),
      ]);
      const merchant = await registerMerchant(api, { pay_to: { evm: VALID_EVM } });
      expect(await owners()).toEqual([merchant.id, merchant.id, null, earlier.id]);
      // What the merchant's own views read from.
      const mine = await api.deps.db.db
        .select()
        .from(settlements)
        .where(eq(settlements.merchantId, merchant.id));
      expect(mine).toHaveLength(2);
    });

    it("a payout-address change links the settlements paid to the new address, in the same transaction", async () => {
      const merchant = await registerMerchant(api, { pay_to: { evm: OTHER_EVM } });
      await api.deps.db.db
        .insert(settlements)
        .values([
          settlementRow(5, { merchantId: null, merchantAddress: VALID_EVM.toLowerCase() }),
          settlementRow(6, { merchantId: merchant.id, merchantAddress: OTHER_EVM.toLowerCase() }),
        ]);
      // A change that fails after linking leaves nothing linked (one transaction).
      await expect(
        api.deps.db.db.transaction(async (tx) => {
          await tx
            .update(merchants)
            .set({ payTo: { evm: VALID_EVM } })
            .where(eq(merchants.id, merchant.id));
          expect(await linkUnattributedSettlements(tx, merchant.id, { evm: VALID_EVM })).toBe(1);
          throw new Error("step-up refused after all");
        }),
      ).rejects.toThrow("step-up refused after all");
      expect(await owners()).toEqual([null, merchant.id]);

      const linked = await api.deps.db.db.transaction(async (tx) => {
        await tx
          .update(merchants)
          .set({ payTo: { evm: VALID_EVM } })
          .where(eq(merchants.id, merchant.id));
        return linkUnattributedSettlements(tx, merchant.id, { evm: VALID_EVM });
      });
      expect(linked).toBe(1);
      // The settlement paid to the old address stays the merchant's: history is not rewritten.
      expect(await owners()).toEqual([merchant.id, merchant.id]);
    });

    it("a payout without an EVM address links nothing", async () => {
      await api.deps.db.db.insert(settlements).values(settlementRow(7, { merchantId: null }));
      const linked = await api.deps.db.db.transaction((tx) =>
        linkUnattributedSettlements(tx, "mrch_nobody", {
          solana: "So11111111111111111111111111111111111111112",
        }),
      );
      expect(linked).toBe(0);
      expect(await owners()).toEqual([null]);
    });
  },
);
