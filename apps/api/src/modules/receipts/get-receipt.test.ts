import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { receiptStateChanges, receipts } from "@tollgate/db";
import { JWKS_PATH, type QuoteResponse, RECEIPT_JWT_TYPE } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOn, type LocalChains, payBody, sendSettlement, startTestChains } from "../../test/chains";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";

describe.each(storageDatabaseKinds("pglite"))("GET /v1/receipts/{id} on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-receipt-"));
  let chains: LocalChains;
  let api: TestApi;
  let merchant: { id: string; secret: string };
  let paid: { receiptId: string; token: string; quote: QuoteResponse; tx: `0x${string}`; block: bigint };

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(kind, { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" });
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({
        network_mode: "test",
        tiers: { standard: "0.002" },
        webhook_url: "https://hooks.example.com/receipts",
      }),
    });
    merchant = { id: String(created.json.merchant_id), secret: String(created.json.secret) };
    // A real payment: quote, settle on the local amoy chain, pay; the receipt is what the API issued.
    const agent = agentOn(chains.chains[0]!, 11);
    const quoted = await api.call("POST", "/v1/quote", {
      body: { merchant_id: merchant.id, resource: "/v1/search", tier: "standard", payer: agent.address },
    });
    expect(quoted.status, quoted.text).toBe(200);
    const quote = quoted.json as unknown as QuoteResponse;
    const tx = await sendSettlement(agent, quote.settlement_call);
    const key = `get-receipt-${quote.quote_id}`;
    const payment = await api.call("POST", "/v1/pay", {
      headers: { "idempotency-key": key },
      body: await payBody(agent, quote, tx, key),
    });
    expect(payment.status, payment.text).toBe(200);
    const { blockNumber } = await agent.client.getTransactionReceipt({ hash: tx });
    paid = {
      receiptId: String(payment.json.receipt_id),
      token: String(payment.json.receipt),
      quote,
      tx,
      block: blockNumber,
    };
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function verifiedReceipt(): Promise<{ payload: JWTPayload & Record<string, unknown>; kid: string }> {
    const jwks = (await api.call("GET", JWKS_PATH)).json as unknown as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(paid.token, createLocalJWKSet(jwks), {
      issuer: api.deps.env.baseUrl,
      audience: merchant.id,
      algorithms: ["EdDSA"],
      typ: RECEIPT_JWT_TYPE,
    });
    return { payload: payload as JWTPayload & Record<string, unknown>, kid: String(protectedHeader.kid) };
  }

  it("happy: the facts are exactly what the signed receipt and the chain say", async () => {
    const { payload, kid } = await verifiedReceipt();
    const res = await api.call("GET", `/v1/receipts/${paid.receiptId}`);
    expect(res.status, res.text).toBe(200);
    const { payer, issued_at, expires_at, ...facts } = res.json;
    // The facts keep the payer as checksummed and times to the millisecond; the token has
    // lowercase `sub` and whole seconds.
    expect(String(payer).toLowerCase()).toBe(payload.sub);
    expect(Math.floor(Date.parse(String(issued_at)) / 1000)).toBe(payload.iat);
    expect(Math.floor(Date.parse(String(expires_at)) / 1000)).toBe(payload.exp);
    expect(facts).toEqual({
      receipt_id: payload.jti,
      quote_id: payload.quote_id,
      merchant_id: payload.aud,
      resource: payload.resource,
      tier: payload.tier,
      quota: payload.quota,
      amount: payload.amount,
      asset: payload.asset,
      network: payload.network,
      chain_id: payload.chain_id,
      tx_ref: payload.tx_ref,
      log_index: payload.log_index,
      block_number: paid.block.toString(),
      confirmations_at_issue: payload.confirmations,
      kid,
      state: "valid",
      state_changed_at: null,
      history: [],
    });
    // And those claims are the quote's: 0.1 USD minimum at 0.002 USD per unit buys 50 units.
    expect(res.json).toMatchObject({
      receipt_id: paid.receiptId,
      quote_id: paid.quote.quote_id,
      merchant_id: merchant.id,
      quota: 50,
      amount: "0.1",
      asset: "USDC",
      network: "amoy",
      chain_id: 80002,
      tx_ref: paid.tx,
    });
  });

  it("happy: a receipt whose payment was orphaned shows its state and history (as the indexer writes them)", async () => {
    const db = api.deps.db.db;
    const at = new Date("2026-02-01T00:00:00Z");
    const orphaned = { chainId: 80002, txHash: paid.tx.toLowerCase(), logIndex: 0, blockNumber: paid.block };
    await db
      .update(receipts)
      .set({ state: "suspended", stateChangedAt: at })
      .where(eq(receipts.id, paid.receiptId));
    await db.insert(receiptStateChanges).values({
      receiptId: paid.receiptId,
      fromState: "valid",
      toState: "suspended",
      reason: "payment_orphaned",
      blockHash: `0x${"ab".repeat(32)}`,
      at,
      ...orphaned,
    });
    try {
      const res = await api.call("GET", `/v1/receipts/${paid.receiptId}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({
        state: "suspended",
        state_changed_at: at.toISOString(),
        history: [
          {
            from: "valid",
            to: "suspended",
            reason: "payment_orphaned",
            tx_ref: paid.tx.toLowerCase(),
            log_index: 0,
            block_number: paid.block.toString(),
            block_hash: `0x${"ab".repeat(32)}`,
            at: at.toISOString(),
          },
        ],
      });
    } finally {
      await db.delete(receiptStateChanges).where(eq(receiptStateChanges.receiptId, paid.receiptId));
      await db
        .update(receipts)
        .set({ state: "valid", stateChangedAt: null })
        .where(eq(receipts.id, paid.receiptId));
    }
  });

  it("error: malformed ids are 400 naming the field; an unknown receipt is 404", async () => {
    for (const bad of [
      "rcpt_",
      "not-a-receipt",
      "rcpt_0OIl0OIl0OIl0OIl",
      "rcpt_1111111111111111'%20or%201=1--",
    ]) {
      const res = await api.call("GET", `/v1/receipts/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.json.code).toBe("validation_failed");
      expect(res.json.errors).toContainEqual(expect.objectContaining({ path: "id" }));
    }
    const unknown = await api.call("GET", "/v1/receipts/rcpt_1111111111111111");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
    expect(unknown.json.code).toBe("not_found");
  });

  it("security: other ids of the same payment do not open it, and the answer holds no token or merchant secret", async () => {
    for (const other of [paid.quote.quote_id, merchant.id]) {
      const res = await api.call("GET", `/v1/receipts/${other}`);
      expect(res.status, other).toBe(400);
    }
    const res = await api.call("GET", `/v1/receipts/${paid.receiptId}`, { headers: bearer(merchant.secret) });
    expect(res.status).toBe(200);
    expect(res.json.receipt_id).toBe(paid.receiptId);
    expect(res.text).not.toContain(paid.token);
    expect(res.text).not.toContain(paid.token.split(".")[2]!);
    expect(res.text).not.toContain(merchant.secret);
    expect(res.text).not.toContain("hooks.example.com");
  });
});
