// End to end on real parts (agent-e2e-test.ts): paying a gated resource, the refusals made before any transaction,
// and quoting without paying.
import { QUOTA_REMAINING_HEADER, type QuoteResponse } from "@tollgate/shared";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  ATTACKER,
  fx,
  MERCHANT_WALLET,
  makeAgent,
  merchant,
  nonceOf,
  pays,
  quotes,
  useAgentE2e,
} from "./agent-e2e-test";
import { usdcBalance } from "./e2e-setup";
import { QuoteRejectedError, SpendLimitError } from "./errors";

useAgentE2e();

describe("paying a gated resource", () => {
  it.each([
    ["1.2", "USDC", "/v12/search"],
    ["1.4", "POL", "/v14/search"],
  ] as const)("v%s %s: pays once and gets the paid response", async (_version, asset, path) => {
    const { agent, account, steps } = makeAgent({ preferences: { asset } });
    const usdcBefore = await usdcBalance(fx, account.address);
    const polBefore = await fx.client.getBalance({ address: MERCHANT_WALLET });
    const quotesBefore = quotes();

    const response = await agent.fetch(`${merchant.url}${path}?q=llamas`);
    expect(response.status).toBe(200);
    expect(response.headers.get(QUOTA_REMAINING_HEADER)).toBe("99");
    const body = (await response.json()) as { ok: boolean; query: { q: string }; receipt_id: string };
    expect(body).toMatchObject({ ok: true, query: { q: "llamas" } });
    expect(quotes() - quotesBefore).toBe(1);

    const kinds = steps.map((s) => s.type);
    expect(kinds).toEqual([
      "rail_chosen",
      "challenge",
      "quote",
      ...(asset === "USDC" ? ["approval_sent", "approval_mined"] : []),
      "settlement_sent",
      "settlement_mined",
      "receipt",
      "response",
    ]);
    const quote = steps.find((s) => s.type === "quote");
    const receipt = steps.find((s) => s.type === "receipt");
    expect(quote).toMatchObject({ amount: "0.1", asset, network: "amoy", units: 100 });
    expect(receipt).toMatchObject({ receiptId: body.receipt_id, quota: 100 });
    if (asset === "USDC") expect(usdcBefore - (await usdcBalance(fx, account.address))).toBe(100_000n);
    else expect((await fx.client.getBalance({ address: MERCHANT_WALLET })) > polBefore).toBe(true);
    expect(await agent.spentInPeriod()).toBe("0.1");
  });

  it("reuses the receipt while quota lasts, then buys again", async () => {
    const { agent, steps } = makeAgent({ preferences: { asset: "USDC" } });
    const quotesBefore = quotes();
    const url = `${merchant.url}/v12/small`; // 0.05 USD per unit: a 0.1 USD minimum buys 2 units
    const first = await agent.fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get(QUOTA_REMAINING_HEADER)).toBe("1");
    const second = await agent.fetch(url);
    expect(second.status).toBe(200);
    expect(second.headers.get(QUOTA_REMAINING_HEADER)).toBe("0");
    expect(steps.filter((s) => s.type === "receipt_reused")).toHaveLength(1);
    expect(quotes() - quotesBefore).toBe(1);
    const [a, b] = [
      (await first.json()) as { receipt_id: string },
      (await second.json()) as { receipt_id: string },
    ];
    expect(b.receipt_id).toBe(a.receipt_id);

    const third = await agent.fetch(url);
    expect(third.status).toBe(200);
    expect(quotes() - quotesBefore).toBe(2);
    expect(((await third.json()) as { receipt_id: string }).receipt_id).not.toBe(a.receipt_id);
    expect(await agent.spentInPeriod()).toBe("0.2");
  });

  it("10 concurrent fetches of one resource share one quote and one payment", async () => {
    const { agent, account, steps } = makeAgent({ preferences: { asset: "POL" } });
    const [quotesBefore, paysBefore, nonceBefore] = [quotes(), pays(), await nonceOf(account.address)];
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => agent.fetch(`${merchant.url}/v12/other?i=${i}`)),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const ids = new Set(
      await Promise.all(responses.map(async (r) => ((await r.json()) as { receipt_id: string }).receipt_id)),
    );
    expect(ids.size).toBe(1);
    expect(quotes() - quotesBefore).toBe(1);
    expect(pays() - paysBefore).toBe(1);
    expect((await nonceOf(account.address)) - nonceBefore).toBe(1); // one settlement transaction
    expect(steps.filter((s) => s.type === "purchase_joined").length).toBeGreaterThan(0);
    const remaining = responses
      .map((r) => Number(r.headers.get(QUOTA_REMAINING_HEADER)))
      .sort((x, y) => x - y);
    expect(remaining).toEqual([90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
  });
});

describe("refusals before any transaction", () => {
  it("maxPerPaymentUsd below the gate's minimum payment: refused before quoting", async () => {
    const { agent, account } = makeAgent({ limits: { maxPerPaymentUsd: "0.05" } });
    const [quotesBefore, usdc] = [quotes(), await usdcBalance(fx, account.address)];
    const error = await agent.fetch(`${merchant.url}/v12/search`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpendLimitError);
    expect(error).toMatchObject({ limit: "max_per_payment" });
    expect(quotes()).toBe(quotesBefore);
    expect(await nonceOf(account.address)).toBe(0);
    expect(await usdcBalance(fx, account.address)).toBe(usdc);
  });

  it("budget per period: the payment that would exceed it is refused after quoting, before signing", async () => {
    const { agent, account } = makeAgent({
      limits: { budgetPerPeriod: { usd: "0.15", periodMs: 3_600_000 } },
      preferences: { asset: "USDC" },
    });
    expect((await agent.fetch(`${merchant.url}/v12/search`)).status).toBe(200);
    const [quotesBefore, nonce, usdc] = [
      quotes(),
      await nonceOf(account.address),
      await usdcBalance(fx, account.address),
    ];
    const error = await agent.fetch(`${merchant.url}/v12/small`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpendLimitError);
    expect(error).toMatchObject({ limit: "budget_per_period", amountUsd: "0.1", allowedUsd: "0.05" });
    expect(quotes() - quotesBefore).toBe(1);
    expect(await nonceOf(account.address)).toBe(nonce);
    expect(await usdcBalance(fx, account.address)).toBe(usdc);
    expect(await agent.spentInPeriod()).toBe("0.1");
  });

  it("a Tollgate origin that is not allowed is refused without quoting", async () => {
    // Accounts >= 100 are unfunded: the refusal tests do not spend the 14 funded ones.
    const { agent, account } = makeAgent({
      accountIndex: 100,
      limits: { allowedOrigins: ["https://api.tollgate.example"] },
    });
    const quotesBefore = quotes();
    const error = await agent.fetch(`${merchant.url}/v12/search`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuoteRejectedError);
    expect(error).toMatchObject({ reason: "origin_not_allowed" });
    expect(quotes()).toBe(quotesBefore);
    expect(await nonceOf(account.address)).toBe(0);
  });

  it("a merchant or network outside the allow-lists is refused", async () => {
    const merchantOnly = makeAgent({ accountIndex: 101, limits: { allowedMerchants: ["mrch_someoneElse"] } });
    await expect(merchantOnly.agent.fetch(`${merchant.url}/v12/search`)).rejects.toMatchObject({
      reason: "merchant_not_allowed",
    });
    const networkOnly = makeAgent({ accountIndex: 102, limits: { allowedNetworks: ["polygon"] } });
    await expect(networkOnly.agent.fetch(`${merchant.url}/v12/search`)).rejects.toMatchObject({
      reason: "network_not_allowed",
    });
    expect(await nonceOf(merchantOnly.account.address)).toBe(0);
    expect(await nonceOf(networkOnly.account.address)).toBe(0);
  });

  it("a quote whose settlement_call was tampered with in transit is refused before sending", async () => {
    const { agent, account } = makeAgent({ preferences: { asset: "POL" } });
    const attackerKey = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const cases: Array<[string, (q: QuoteResponse) => Promise<QuoteResponse>, string]> = [
      [
        "to rewritten",
        async (q) => ({ ...q, settlement_call: { ...q.settlement_call, to: ATTACKER } }),
        "call_mismatch",
      ],
      [
        "value rewritten",
        async (q) => ({ ...q, amount_atomic: "1", settlement_call: { ...q.settlement_call, value: "1" } }),
        "call_mismatch",
      ],
      [
        // Consistent USD fields (units x unit price) that understate what the signed call moves.
        "USD amount understated",
        async (q) => ({ ...q, amount: "0.01", unit_price: "0.0001" }),
        "quote_mismatch",
      ],
      [
        "re-signed by another key",
        async (q) => {
          const claims = decodeJwt(q.settlement_call.signature);
          const header = decodeProtectedHeader(q.settlement_call.signature);
          const signature = await new SignJWT({ ...claims, to: ATTACKER })
            .setProtectedHeader({ alg: "EdDSA", typ: String(header.typ), kid: String(header.kid) })
            .sign(attackerKey.privateKey);
          return { ...q, settlement_call: { ...q.settlement_call, to: ATTACKER, signature } };
        },
        "signature_invalid",
      ],
    ];
    const quotesBefore = quotes();
    try {
      for (const [name, tamper, reason] of cases) {
        fx.main.proxy.rewrite = async (path, json) =>
          path === "/v1/quote"
            ? ((await tamper(json as unknown as QuoteResponse)) as unknown as Record<string, unknown>)
            : json;
        const error = await agent.fetch(`${merchant.url}/v12/search`).catch((e: unknown) => e);
        expect(error, name).toBeInstanceOf(QuoteRejectedError);
        expect(error, name).toMatchObject({ reason });
      }
    } finally {
      fx.main.proxy.rewrite = undefined;
    }
    expect(quotes() - quotesBefore).toBe(cases.length);
    expect(await nonceOf(account.address)).toBe(0);
    expect(await agent.spentInPeriod()).toBe("0");
  });
});

describe("quote without paying (Agent.quote)", () => {
  it("returns the checked quote and signs nothing; refuses an untrusted API", async () => {
    // Reuses account 6: nothing is sent from it here.
    const { agent, account, steps } = makeAgent({ accountIndex: 6 });
    const nonce = await nonceOf(account.address);
    const [quotesBefore, paysBefore] = [quotes(), pays()];
    const result = await agent.quote(`${merchant.url}/v12/search?q=quote`);
    expect(result.challenge).toMatchObject({ resource: "/v12/search", tier: "standard" });
    expect(result.quote).toMatchObject({
      amount: "0.1",
      network: "amoy",
      units: 100,
    });
    expect(result.quote?.payer.toLowerCase()).toBe(account.address.toLowerCase());
    expect(quotes() - quotesBefore).toBe(1);
    expect(pays()).toBe(paysBefore);
    expect(await nonceOf(account.address)).toBe(nonce);
    expect(steps).toEqual([]);
    const untrusted = makeAgent({
      accountIndex: 6,
      limits: { allowedOrigins: ["https://elsewhere.example"] },
    });
    await expect(untrusted.agent.quote(`${merchant.url}/v12/search`)).rejects.toMatchObject({
      reason: "origin_not_allowed",
    });
  });
});
