/**
 * Quote -> pay -> receipt on local chains, the refusals: payments that do not match their quote, bad requests and
 * keys, expiry, and a retry after a reorg; nothing is issued.
 */
import { receipts } from "@tollgate/db";
import {
  AIFP_PROTOCOL,
  orderIdHash,
  type QuoteResponse,
  splitterV12Abi,
  ZERO_ADDRESS,
} from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { type Address, encodeFunctionData, type Hash } from "viem";
import { describe, expect, it } from "vitest";
import { deployRogueSplitter, mine, payBody, sendSettlement, setAutomine } from "../../test/chains";
import { startTestApi, testDatabaseKinds } from "../../test/harness";
import {
  agent,
  api,
  chains,
  dataDir,
  MERCHANT_WALLET,
  merchants,
  newKey,
  payFor,
  quote,
  receiptCount,
  stranger,
  usePayFixture,
} from "./pay-fixture";

describe.each(testDatabaseKinds())("quote -> pay -> receipt on local chains (%s)", (kind) => {
  usePayFixture(kind);

  describe("refusals (nothing issued)", () => {
    async function expectRefused(response: Awaited<ReturnType<typeof payFor>>, status: number, code: string) {
      expect(response.status, response.text).toBe(status);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code).toBe(code);
    }

    it("a look-alike Payment event from another contract", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "POL" });
      // A second v1.2 splitter that is not the registered one emits a genuine-looking Payment for this order.
      const rogue = await deployRogueSplitter(agent);
      const hash = await agent.wallet.sendTransaction({
        account: agent.account,
        chain: null,
        to: rogue,
        value: BigInt(q.amount_atomic),
        data: encodeFunctionData({
          abi: splitterV12Abi,
          functionName: "payNative",
          args: [orderIdHash(q.quote_id), MERCHANT_WALLET, ZERO_ADDRESS, q.quote_id],
        }),
      });
      await agent.client.waitForTransactionReceipt({ hash });
      const before = await receiptCount();
      const response = await payFor(q, hash);
      await expectRefused(response, 422, "payment_log_missing");
      expect(String(response.json.detail)).toContain("look-alike");
      expect(await receiptCount()).toBe(before);
    });

    async function payV12Directly(
      q: QuoteResponse,
      overrides: { value?: bigint; merchant?: Address; orderId?: string },
    ) {
      const orderId = overrides.orderId ?? q.quote_id;
      const hash = await agent.wallet.sendTransaction({
        account: agent.account,
        chain: null,
        to: q.settlement_call.to as Address,
        value: overrides.value ?? BigInt(q.amount_atomic),
        data: encodeFunctionData({
          abi: splitterV12Abi,
          functionName: "payNative",
          args: [orderIdHash(orderId), overrides.merchant ?? MERCHANT_WALLET, ZERO_ADDRESS, orderId],
        }),
      });
      await agent.client.waitForTransactionReceipt({ hash });
      return hash;
    }

    it("underpayment", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "POL" });
      const tx = await payV12Directly(q, { value: BigInt(q.amount_atomic) - 1000n });
      await expectRefused(await payFor(q, tx), 422, "payment_amount_mismatch");
    });

    it("wrong merchant", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "POL" });
      const tx = await payV12Directly(q, { merchant: stranger.address });
      await expectRefused(await payFor(q, tx), 422, "payment_merchant_mismatch");
    });

    it("wrong token", async () => {
      const usdc = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const pol = await quote({ merchant_id: merchants.v12, asset: "POL" });
      // Pay the USDC quote's order in POL.
      const tx = await payV12Directly(usdc, { value: BigInt(pol.amount_atomic) });
      await expectRefused(await payFor(usdc, tx), 422, "payment_token_mismatch");
    });

    it("a payment authorization signed by someone other than the payer", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      await expectRefused(await payFor(q, tx, newKey(), stranger), 403, "payment_authorization_invalid");
      // The real payer can still claim it afterwards.
      expect((await payFor(q, tx)).status).toBe(200);
    });

    it("a transaction that paid another quote", async () => {
      const a = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const b = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const txB = await sendSettlement(agent, b.settlement_call);
      await expectRefused(await payFor(a, txB), 422, "payment_log_missing");
    });

    it("a reverted transaction", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "POL" });
      // Hardhat refuses reverting transactions while automining; queue it and mine it as a reverted block entry.
      const chain = chains.chains[0]!;
      await setAutomine(chain, false);
      let hash: Hash;
      try {
        hash = await agent.wallet.sendTransaction({
          account: agent.account,
          chain: null,
          to: q.settlement_call.to as Address,
          data: q.settlement_call.data as `0x${string}`,
          value: 1n, // not what the call needs: the split of 1 wei reverts
          gas: 300_000n,
        });
        await mine(chain, 1);
      } finally {
        await setAutomine(chain, true);
      }
      expect((await agent.client.getTransactionReceipt({ hash })).status).toBe("reverted");
      await expectRefused(await payFor(q, hash), 422, "tx_reverted");
    });

    /** Quotes on a service whose clock runs `behindMs` behind the chain, settles, and pays there. */
    async function payWithClockBehind(behindMs: number) {
      const behind = () => new Date(Date.now() - behindMs);
      const past = await startTestApi(
        kind,
        { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" },
        { clock: { now: behind }, db: api.deps.db },
      );
      try {
        const response = await past.call("POST", "/v1/quote", {
          body: {
            merchant_id: merchants.v12,
            resource: "/r",
            tier: "standard",
            payer: agent.address,
            asset: "USDC",
          },
        });
        const q = response.json as unknown as QuoteResponse;
        const tx = await sendSettlement(agent, q.settlement_call);
        const key = newKey();
        const body = await payBody(agent, q, tx, key, new Date(behind().getTime() + 300_000));
        return await past.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
      } finally {
        await past.close();
      }
    }

    it("a v1.2 payment mined a little after expiry (slow mempool) is honoured within the grace", async () => {
      // The quote (10 min) expired 5 minutes before the block that paid it.
      const paid = await payWithClockBehind(15 * 60_000);
      expect(paid.status, paid.text).toBe(200);
    });

    it("a v1.2 payment mined after the quote expired, beyond the grace", async () => {
      await expectRefused(await payWithClockBehind(2 * 3_600_000), 422, "payment_after_quote_expiry");
    });

    it("a quote already paid by another transaction", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "POL" });
      const tx = await sendSettlement(agent, q.settlement_call);
      expect((await payFor(q, tx)).status).toBe(200);
      // A second, different transaction (another order) presented for the same quote.
      const other = await quote({ merchant_id: merchants.v12, asset: "POL" });
      const otherTx = await sendSettlement(agent, other.settlement_call);
      await expectRefused(await payFor(q, otherTx), 409, "quote_already_paid");
    });

    it("bad requests: key missing or short, key reused with another body, unknown quote, malformed body", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const key = newKey();
      const body = await payBody(agent, q, tx, key);
      await expectRefused(await api.call("POST", "/v1/pay", { body }), 400, "idempotency_key_required");
      await expectRefused(
        await api.call("POST", "/v1/pay", { body, headers: { "idempotency-key": "short" } }),
        400,
        "idempotency_key_required",
      );
      expect((await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body })).status).toBe(
        200,
      );
      const other = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const otherTx = await sendSettlement(agent, other.settlement_call);
      const reused = await api.call("POST", "/v1/pay", {
        headers: { "idempotency-key": key },
        body: await payBody(agent, other, otherTx, key),
      });
      await expectRefused(reused, 422, "idempotency_key_reused");
      const unknownKey = newKey();
      const unknown = await api.call("POST", "/v1/pay", {
        headers: { "idempotency-key": unknownKey },
        body: await payBody(agent, { quote_id: "qt_1111111111111111" }, tx, unknownKey),
      });
      await expectRefused(unknown, 404, "quote_not_found");
      const malformed = await api.call("POST", "/v1/pay", {
        headers: { "idempotency-key": newKey() },
        body: { quote_id: q.quote_id, tx_ref: "0x1234" },
      });
      await expectRefused(malformed, 400, "validation_failed");
      expect(AIFP_PROTOCOL).toBe("AIFP-1");
    });

    it("a payment sent from another wallet than the quote's payer", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "POL" });
      const hash = await stranger.wallet.sendTransaction({
        account: stranger.account,
        chain: null,
        to: q.settlement_call.to as Address,
        data: q.settlement_call.data as `0x${string}`,
        value: BigInt(q.settlement_call.value),
      });
      await stranger.client.waitForTransactionReceipt({ hash });
      await expectRefused(await payFor(q, hash), 422, "payment_payer_mismatch");
    });

    it("a refused request does not burn its key; a key over 255 characters is refused", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const key = newKey();
      const forged = await api.call("POST", "/v1/pay", {
        headers: { "idempotency-key": key },
        body: await payBody(stranger, q, tx, key),
      });
      await expectRefused(forged, 403, "payment_authorization_invalid");
      const good = await api.call("POST", "/v1/pay", {
        headers: { "idempotency-key": key },
        body: await payBody(agent, q, tx, key),
      });
      expect(good.status, good.text).toBe(200);
      const long = "k".repeat(256);
      await expectRefused(
        await api.call("POST", "/v1/pay", {
          headers: { "idempotency-key": long },
          body: await payBody(agent, q, tx, long),
        }),
        400,
        "idempotency_key_required",
      );
    });

    it("the stored answer is replayed for the same key and body even after the authorization expired", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const key = newKey();
      const body = await payBody(agent, q, tx, key, new Date(Date.now() + 60_000));
      const first = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
      expect(first.status).toBe(200);
      const later = await startTestApi(
        kind,
        { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" },
        {
          clock: { now: () => new Date(Date.now() + 600_000) },
          db: api.deps.db,
        },
      );
      try {
        const replay = await later.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
        expect(replay.status, replay.text).toBe(200);
        expect(replay.json.receipt_id).toBe(first.json.receipt_id);
      } finally {
        await later.close();
      }
    });

    it("a retry never hands out a receipt that was suspended or revoked after a reorg", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const key = newKey();
      const body = await payBody(agent, q, tx, key);
      const first = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
      expect(first.status, first.text).toBe(200);
      const receiptId = String(first.json.receipt_id);
      for (const state of ["suspended", "revoked"] as const) {
        await api.deps.db.db.update(receipts).set({ state }).where(eq(receipts.id, receiptId));
        const sameKey = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
        await expectRefused(sameKey, 402, "receipt_revoked");
        expect(sameKey.text).toContain(state);
        expect(sameKey.text).not.toContain(String(first.json.receipt));
        await expectRefused(await payFor(q, tx), 402, "receipt_revoked");
      }
      await api.deps.db.db.update(receipts).set({ state: "valid" }).where(eq(receipts.id, receiptId));
      const reinstated = await payFor(q, tx);
      expect(reinstated.status).toBe(200);
      expect(reinstated.json.receipt_id).toBe(receiptId);
    });

    it("an expired payment authorization", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const key = newKey();
      const body = await payBody(agent, q, tx, key, new Date(Date.now() - 1000));
      await expectRefused(
        await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body }),
        403,
        "payment_authorization_expired",
      );
    });
  });
});
