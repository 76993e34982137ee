/**
 * Quote -> pay -> receipt on local chains, the paths that issue a receipt: every version and asset, retries and
 * parallel calls that yield one receipt, confirmations awaited, and a payment mined before its quote expired.
 */
import { type QuoteResponse, RECEIPT_JWT_TYPE } from "@tollgate/shared";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { mine, payBody, sendSettlement } from "../../test/chains";
import { registrationBody, startTestApi, testDatabaseKinds } from "../../test/harness";
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
  usePayFixture,
} from "./pay-fixture";

describe.each(testDatabaseKinds())("quote -> pay -> receipt on local chains (%s)", (kind) => {
  usePayFixture(kind);

  describe("happy", () => {
    it.each([
      ["1.2", "POL"],
      ["1.2", "USDC"],
      ["1.4", "POL"],
      ["1.4", "USDC"],
    ] as const)("v%s %s: quote, settle, pay, verify the receipt against the JWKS", async (version, asset) => {
      const merchantId = version === "1.2" ? merchants.v12 : merchants.v14;
      const q = await quote({ merchant_id: merchantId, asset });
      expect(q).toMatchObject({
        merchant_id: merchantId,
        units: 100, // 0.001 USD per unit, 0.1 USD minimum
        amount: "0.1",
        asset,
        network: "amoy",
        chain_id: 80002,
        settlement_version: version,
        economics_profile: "aifp1-gross-inclusive-100-0-v1",
      });
      expect(BigInt(q.split.merchant) + BigInt(q.split.treasury) + BigInt(q.split.ip_creator)).toBe(
        BigInt(q.amount_atomic),
      );
      expect(BigInt(q.split.treasury)).toBe((BigInt(q.amount_atomic) * 100n) / 10_000n);
      if (asset === "USDC") expect(q.amount_atomic).toBe("100000");
      else expect(q.rate?.pair).toBe("POL/USD");
      expect(Boolean(q.settlement_call.approval)).toBe(asset === "USDC");

      const jwks = createLocalJWKSet((await api.call("GET", "/.well-known/jwks.json")).json as never);
      const call = await jwtVerify(q.settlement_call.signature, jwks, { issuer: api.deps.env.baseUrl });
      expect(call.payload).toMatchObject({
        quote_id: q.quote_id,
        to: q.settlement_call.to,
        data: q.settlement_call.data,
      });

      const before = await agent.client.getBalance({ address: MERCHANT_WALLET });
      const tx = await sendSettlement(agent, q.settlement_call);
      const paid = await payFor(q, tx);
      expect(paid.status, paid.text).toBe(200);
      expect(paid.json).toMatchObject({
        status: "paid",
        quote_id: q.quote_id,
        quota: 100,
        tx_ref: tx,
        chain_id: 80002,
      });
      if (asset === "POL") {
        expect((await agent.client.getBalance({ address: MERCHANT_WALLET })) - before).toBe(
          BigInt(q.split.merchant),
        );
      }

      const token = String(paid.json.receipt);
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: "EdDSA", typ: RECEIPT_JWT_TYPE });
      const { payload } = await jwtVerify(token, jwks, {
        issuer: api.deps.env.baseUrl,
        audience: merchantId,
        algorithms: ["EdDSA"],
        typ: RECEIPT_JWT_TYPE,
      });
      expect(payload).toMatchObject({
        sub: agent.address.toLowerCase(),
        jti: paid.json.receipt_id,
        quote_id: q.quote_id,
        resource: "/v1/search",
        scope: "/v1/search",
        tier: "standard",
        quota: 100,
        amount: "0.1",
        asset,
        network: "amoy",
        chain_id: 80002,
        tx_ref: tx,
        economics_profile: "aifp1-gross-inclusive-100-0-v1",
        // The network's reorg window (amoy: 64 blocks), for gates that want final receipts only.
        finality_depth: 64,
      });
      const facts = await api.call("GET", `/v1/receipts/${String(paid.json.receipt_id)}`);
      expect(facts.json).toMatchObject({ quote_id: q.quote_id, tx_ref: tx, quota: 100 });
      expect(facts.text).not.toContain(token);
    });

    it("a retried /v1/pay after a dropped response returns the same receipt", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const key = newKey();
      const body = await payBody(agent, q, tx, key);
      const first = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
      const second = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.json).toEqual(first.json);
      expect(second.headers.get("idempotent-replayed")).toBe("true");
      // A new key for the same payment also gets the same receipt, not a second one.
      const third = await payFor(q, tx);
      expect(third.json.receipt_id).toBe(first.json.receipt_id);
      expect(third.json.receipt).toBe(first.json.receipt);
    });

    it("50 parallel /v1/pay calls (same key and different keys) yield one receipt", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const before = await receiptCount();
      const sharedKey = newKey();
      const sharedBody = await payBody(agent, q, tx, sharedKey);
      const bodies = await Promise.all(
        Array.from({ length: 25 }, async () => {
          const key = newKey();
          return { key, body: await payBody(agent, q, tx, key) };
        }),
      );
      const responses = await Promise.all([
        ...Array.from({ length: 25 }, () =>
          api.call("POST", "/v1/pay", { headers: { "idempotency-key": sharedKey }, body: sharedBody }),
        ),
        ...bodies.map(({ key, body }) =>
          api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body }),
        ),
      ]);
      const ok = responses.filter((r) => r.status === 200);
      expect(responses.every((r) => r.status === 200 || r.status === 409)).toBe(true);
      expect(
        responses.filter((r) => r.status === 409).every((r) => r.json.code === "idempotency_key_in_use"),
      ).toBe(true);
      expect(ok.length).toBeGreaterThanOrEqual(25);
      expect(new Set(ok.map((r) => r.json.receipt_id)).size).toBe(1);
      expect((await receiptCount()) - before).toBe(1);
      // The shared key settles to the stored answer once the race is over.
      const after = await api.call("POST", "/v1/pay", {
        headers: { "idempotency-key": sharedKey },
        body: sharedBody,
      });
      expect(after.json.receipt_id).toBe(ok[0]?.json.receipt_id);
    });

    it("answers 202 with Retry-After until the confirmations are reached", async () => {
      const strict = await startTestApi(
        kind,
        { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "3" },
        { db: api.deps.db },
      );
      try {
        const created = await strict.call("POST", "/v1/merchants", {
          body: registrationBody({ network_mode: "test" }),
        });
        const response = await strict.call("POST", "/v1/quote", {
          body: {
            merchant_id: created.json.merchant_id,
            resource: "/r",
            tier: "standard",
            payer: agent.address,
            asset: "USDC",
          },
        });
        const q = response.json as unknown as QuoteResponse;
        const tx = await sendSettlement(agent, q.settlement_call);
        const key = newKey();
        const body = await payBody(agent, q, tx, key);
        const pending = await strict.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
        expect(pending.status).toBe(202);
        expect(pending.headers.get("retry-after")).toBe("2");
        expect(pending.json).toMatchObject({
          status: "pending",
          confirmations: 1,
          required_confirmations: 3,
        });
        await mine(chains.chains[0]!, 2);
        const done = await strict.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
        expect(done.status).toBe(200);
        expect(done.json.confirmations).toBe(3);
      } finally {
        await strict.close();
      }
    });

    it("honours a payment mined before the quote expired, even when /v1/pay comes after expiry", async () => {
      const q = await quote({ merchant_id: merchants.v12, asset: "USDC" });
      const tx = await sendSettlement(agent, q.settlement_call);
      const late = await startTestApi(
        kind,
        { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" },
        {
          clock: { now: () => new Date(Date.parse(q.expires_at) + 3_600_000) },
          db: api.deps.db,
        },
      );
      try {
        const key = newKey();
        const body = await payBody(agent, q, tx, key, new Date(Date.parse(q.expires_at) + 3_700_000));
        const paid = await late.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
        expect(paid.status, paid.text).toBe(200);
      } finally {
        await late.close();
      }
    });
  });
});
