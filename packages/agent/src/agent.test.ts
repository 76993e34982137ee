// End to end on real parts (DESIGN §10: no hand-written fixtures): local amoy chain with the real contracts, the
// real API (behind a counting proxy), merchants registered through the API, and a real Express server gated by
// @tollgate/gate.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { QUOTA_REMAINING_HEADER, type QuoteResponse } from "@tollgate/shared";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { type Address, http, type LocalAccount, type Transport } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import {
  type Fixture,
  hardhatAccount,
  mine,
  type ProxiedApi,
  registerMerchant,
  startFixture,
  startMerchant,
  startProxiedApi,
  usdcBalance,
} from "./e2e-setup";
import { PaymentFailedError, QuoteRejectedError, SpendLimitError } from "./errors";
import type { AgentOptions, AgentStep } from "./options";
import { FileAgentStore } from "./store";

const MERCHANT_WALLET = "0x52908400098527886E0F7030069857D2E4169EE7" as Address;
const ATTACKER = "0x000000000000000000000000000000000000dEaD";

let fx: Fixture;
let strict: ProxiedApi;
let merchant: Awaited<ReturnType<typeof startMerchant>>;
let nextAccount = 6; // Hardhat accounts 6..19 are funded and hold no roles (checked in afterAll)

beforeAll(async () => {
  fx = await startFixture("e2e");
  const v12 = await registerMerchant(fx.main.api, "1.2", { standard: "0.001", small: "0.05" });
  const v14 = await registerMerchant(fx.main.api, "1.4", { standard: "0.001" });
  // Same database and keys, stricter confirmations, its own origin (DESIGN.md §6: 202 until confirmed).
  strict = await startProxiedApi(
    fx.dataDir,
    { CONFIRMATIONS_AMOY: "2", PAY_PENDING_RETRY_AFTER_SECONDS: "1" },
    { db: fx.main.api.deps.db },
  );
  const api = fx.main.proxy.url;
  merchant = await startMerchant([
    { path: "/v12/search", merchantId: v12, tier: "standard", apiBaseUrl: api },
    { path: "/v12/small", merchantId: v12, tier: "small", apiBaseUrl: api },
    { path: "/v12/other", merchantId: v12, tier: "standard", apiBaseUrl: api },
    { path: "/v14/search", merchantId: v14, tier: "standard", apiBaseUrl: api },
    { path: "/strict/search", merchantId: v12, tier: "standard", apiBaseUrl: strict.proxy.url },
  ]);
}, 120_000);

afterAll(async () => {
  expect(nextAccount).toBeLessThanOrEqual(20);
  await merchant?.close();
  await strict?.close();
  await fx?.close();
});

function makeAgent(
  overrides: Partial<Omit<AgentOptions, "limits">> & {
    limits?: Partial<AgentOptions["limits"]>;
    accountIndex?: number;
  } = {},
) {
  const account: LocalAccount = hardhatAccount(overrides.accountIndex ?? nextAccount++);
  const steps: AgentStep[] = [];
  const { limits, accountIndex: _ignored, ...rest } = overrides;
  const agent = createAgent({
    account,
    chains: { 80002: { rpcUrl: fx.chain.rpcUrl } },
    onStep: (step) => {
      steps.push(step);
    },
    timing: { pollingIntervalMs: 100, quoteSafetyMarginMs: 30_000 },
    ...rest,
    limits: {
      maxPerPaymentUsd: "1",
      budgetPerPeriod: { usd: "10", periodMs: 3_600_000 },
      allowedOrigins: [fx.main.proxy.url],
      ...limits,
    },
  });
  return { agent, account, steps };
}

const count = (api: ProxiedApi, label: string) => api.proxy.counts.get(label) ?? 0;
const quotes = () => count(fx.main, "POST /v1/quote");
const pays = () => count(fx.main, "POST /v1/pay");
const nonceOf = (address: Address) => fx.client.getTransactionCount({ address });

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

describe("waiting and resuming", () => {
  it("waits out 202 + Retry-After until the confirmations are reached", async () => {
    let mined = false;
    const steps: AgentStep[] = [];
    const { agent } = makeAgent({
      limits: { allowedOrigins: [strict.proxy.url] },
      preferences: { asset: "USDC" },
      onStep: (step) => {
        steps.push(step);
        if (step.type === "pay_pending" && !mined) {
          mined = true;
          setTimeout(() => void mine(fx.chain, 1), 200); // the second confirmation arrives later
        }
      },
    });
    const response = await agent.fetch(`${merchant.url}/strict/search`);
    expect(response.status).toBe(200);
    expect(steps.find((s) => s.type === "pay_pending")).toMatchObject({
      confirmations: 1,
      requiredConfirmations: 2,
    });
    expect(steps.find((s) => s.type === "receipt")).toMatchObject({ confirmations: 2 });
    expect(count(strict, "POST /v1/pay")).toBeGreaterThanOrEqual(2);
  });

  it("a crash after the transaction and before /v1/pay resumes with the same key and pays once", async () => {
    const index = nextAccount++;
    const storePath = join(fx.dataDir, "agent-crash.json");
    const crashed: AgentStep[] = [];
    const first = makeAgent({
      accountIndex: index,
      store: new FileAgentStore(storePath),
      preferences: { asset: "USDC" },
      onStep: (step) => {
        crashed.push(step);
        if (step.type === "settlement_mined") throw new Error("simulated crash");
      },
    });
    const usdcBefore = await usdcBalance(fx, first.account.address);
    const [quotesBefore, paysBefore] = [quotes(), pays()];
    await expect(first.agent.fetch(`${merchant.url}/v14/search`)).rejects.toThrow("simulated crash");
    const sent = crashed.find((s) => s.type === "settlement_sent");
    if (sent?.type !== "settlement_sent") throw new Error("no settlement sent");
    expect(pays()).toBe(paysBefore);
    const stored = JSON.parse(readFileSync(storePath, "utf8")) as {
      purchases: Record<string, { idempotencyKey: string }>;
    };
    expect(Object.values(stored.purchases).map((p) => p.idempotencyKey)).toEqual([sent.idempotencyKey]);
    const nonceAfterCrash = await nonceOf(first.account.address);

    const second = makeAgent({ accountIndex: index, store: new FileAgentStore(storePath) });
    const response = await second.agent.fetch(`${merchant.url}/v14/search`);
    expect(response.status).toBe(200);
    expect(second.steps.map((s) => s.type)).toEqual(["challenge", "resume", "receipt", "response"]);
    expect(quotes() - quotesBefore).toBe(1);
    expect(fx.main.proxy.payKeys.slice(paysBefore)).toEqual([sent.idempotencyKey]);
    expect(await nonceOf(first.account.address)).toBe(nonceAfterCrash);
    expect(usdcBefore - (await usdcBalance(fx, first.account.address))).toBe(100_000n);
    const after = JSON.parse(readFileSync(storePath, "utf8")) as { purchases: object; receipts: object };
    expect(after.purchases).toEqual({});
    expect(Object.keys(after.receipts)).toHaveLength(1);
    expect(await second.agent.failedPayments()).toEqual([]);
  });

  it("a crash between persisting the signed transaction and broadcasting it rebroadcasts the same bytes", async () => {
    const index = nextAccount++;
    const storePath = join(fx.dataDir, "agent-broadcast-crash.json");
    const base = http(fx.chain.rpcUrl);
    // The process "dies" exactly at broadcast: the signed transaction is in the store, the chain never saw it.
    const dying: Transport = (options) => {
      const inner = base(options);
      const request = (async (args: { method: string }) => {
        if (args.method === "eth_sendRawTransaction") throw new Error("simulated crash before broadcast");
        return inner.request(args as Parameters<typeof inner.request>[0]);
      }) as typeof inner.request;
      return { ...inner, request };
    };
    const first = makeAgent({
      accountIndex: index,
      store: new FileAgentStore(storePath),
      chains: { 80002: { transport: dying } },
      preferences: { asset: "USDC" }, // dies at the approval, the first transaction
    });
    const quotesBefore = quotes();
    const error = await first.agent.fetch(`${merchant.url}/v12/search`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentFailedError);
    expect(error).toMatchObject({ reason: "interrupted", details: { resumable: true } });
    const signedHash = (error as PaymentFailedError).details.approvalTxHash;
    expect(signedHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The invariant itself: the signed bytes were durable before the broadcast was attempted.
    const stored = JSON.parse(readFileSync(storePath, "utf8")) as {
      purchases: Record<string, { approval?: { hash: string; raw: string } }>;
    };
    expect(Object.values(stored.purchases).map((p) => p.approval?.hash)).toEqual([signedHash]);
    expect(await nonceOf(first.account.address)).toBe(0);

    const second = makeAgent({ accountIndex: index, store: new FileAgentStore(storePath) });
    const receipts = await second.agent.resumePending();
    expect(receipts).toHaveLength(1);
    const mined = await fx.client.getTransactionReceipt({ hash: signedHash as `0x${string}` });
    expect(mined.status).toBe("success");
    expect(await nonceOf(first.account.address)).toBe(2); // the same approval, then the settlement
    expect(quotes() - quotesBefore).toBe(1);
    const response = await second.agent.fetch(`${merchant.url}/v12/search`);
    expect(response.status).toBe(200);
    expect(quotes() - quotesBefore).toBe(1); // the resumed receipt is used, nothing bought again
  });

  it("retries /v1/pay through 503s with the same key", async () => {
    const { agent, steps } = makeAgent({
      preferences: { asset: "POL" },
      timing: { pollingIntervalMs: 100, maxBackoffMs: 200 },
    });
    let failures = 2;
    const paysBefore = pays();
    fx.main.proxy.fault = (label) =>
      label === "POST /v1/pay" && failures-- > 0
        ? { status: 503, body: { code: "service_unavailable", status: 503 } }
        : undefined;
    try {
      expect((await agent.fetch(`${merchant.url}/v12/search`)).status).toBe(200);
    } finally {
      fx.main.proxy.fault = undefined;
    }
    expect(steps.filter((s) => s.type === "pay_retry")).toHaveLength(2);
    const keys = fx.main.proxy.payKeys.slice(paysBefore);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it("a definitive /v1/pay refusal throws PaymentFailedError with the tx hash and keeps a trace", async () => {
    const { agent, account } = makeAgent({ preferences: { asset: "POL" } });
    fx.main.proxy.fault = (label) =>
      label === "POST /v1/pay"
        ? { status: 422, body: { code: "payment_log_missing", status: 422, detail: "injected" } }
        : undefined;
    let error: unknown;
    try {
      error = await agent.fetch(`${merchant.url}/v12/search`).catch((e: unknown) => e);
    } finally {
      fx.main.proxy.fault = undefined;
    }
    expect(error).toBeInstanceOf(PaymentFailedError);
    const failed = error as PaymentFailedError;
    expect(failed).toMatchObject({
      reason: "pay_refused",
      details: { problemCode: "payment_log_missing", resumable: false },
    });
    expect(failed.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const mined = await fx.client.getTransactionReceipt({ hash: failed.txHash as `0x${string}` });
    expect(mined.from.toLowerCase()).toBe(account.address.toLowerCase());
    expect(await agent.failedPayments()).toEqual([
      expect.objectContaining({
        txHash: failed.txHash,
        reason: "payment_log_missing",
        quoteId: failed.details.quoteId,
      }),
    ]);
  });
});
