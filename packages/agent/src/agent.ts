/**
 * The agent client: a `fetch` that pays AIFP-1 gates through Tollgate (SPEC §1 steps 1-6; DESIGN.md §6).
 *
 * On a 402 carrying a valid challenge it buys a receipt (purchase.ts: quote and checks in quote-client.ts,
 * spend limits in limits.ts, the durable ledger in ledger.ts, chain execution in execution.ts, /v1/pay in
 * pay-client.ts) and repeats the request with `AIFP-Receipt`. Invariants:
 * - nothing is signed before every check and spend limit passed;
 * - the purchase (idempotency key, quote, signed raw transaction) is persisted before a transaction is
 *   broadcast, so a crash resumes with the same key and transaction and never pays twice;
 * - one purchase per (API origin, merchant, resource, tier) at a time in this process (prior-art §8 item 10);
 * - a transaction that earned no receipt is reported with its hash (PaymentFailedError) and kept in the
 *   store's `failed` list, never dropped silently (prior-art §8 item 13).
 */
import { formatUsd, QUOTA_REMAINING_HEADER, RECEIPT_HEADER, ZGateChallenge } from "@tollgate/shared";
import { ChainSet } from "./chains";
import { endpointsOf, JwksCache } from "./checks";
import { systemClock, systemSleep } from "./clock";
import { AgentError } from "./errors";
import { createExecutor } from "./execution";
import { readJson, timedFetch } from "./http-json";
import { AgentLedger } from "./ledger";
import { checkMerchantAllowed, spendPolicyOf } from "./limits";
import { type Agent, type AgentOptions, type AgentStep, type QuoteResult, resolveTiming } from "./options";
import { createPayClient } from "./pay-client";
import { createPurchaser, purchaseKey } from "./purchase";
import { createQuoteClient } from "./quote-client";
import { MemoryAgentStore, type ReceiptRecord } from "./store";
import { createX402Payer } from "./x402-pay";
import { parseX402Challenge } from "./x402-wire";

export type {
  Agent,
  AgentLimits,
  AgentOptions,
  AgentStep,
  AgentTiming,
  ChainConfig,
} from "./options";

const MAX_PURCHASES_PER_CALL = 3;
const MAX_ATTEMPTS_PER_CALL = 8;

/** Where a learned purchase key applies: the URL's origin and path. */
function siteOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/**
 * Creates an agent. Nothing is read or sent until the first `fetch`.
 *
 * @example
 * const agent = createAgent({
 *   account: privateKeyToAccount(key),
 *   chains: { 137: { rpcUrl: "https://polygon-rpc.com" } },
 *   limits: { maxPerPaymentUsd: "0.5", budgetPerPeriod: { usd: "5", periodMs: 86_400_000 },
 *             allowedOrigins: ["https://api.tollgate.example"] },
 *   store: new FileAgentStore(".tollgate-agent.json"),
 * });
 * const response = await agent.fetch("https://merchant.example/v1/search?q=llamas");
 */
export function createAgent(options: AgentOptions): Agent {
  const { account } = options;
  const fetchImpl = options.fetchImpl ?? fetch;
  const clock = options.clock ?? systemClock;
  const timing = resolveTiming(options.timing);
  const policy = spendPolicyOf(options.limits);
  const tollgateFetch = timedFetch(fetchImpl, timing.requestTimeoutMs);
  const onStep = async (event: AgentStep) => {
    await options.onStep?.(event);
  };
  const ledger = new AgentLedger(options.store ?? new MemoryAgentStore(), clock, policy);
  const chains = ChainSet.fromConfig(account, options.chains, timing.pollingIntervalMs);
  const quotes = createQuoteClient({
    fetch: tollgateFetch,
    payer: account.address,
    preferences: options.preferences,
    policy,
    hasChain: (chainId) => chains.has(chainId),
    jwks: new JwksCache(tollgateFetch, clock),
    clock,
    quoteSafetyMarginMs: timing.quoteSafetyMarginMs,
  });
  const purchaser = createPurchaser({
    ledger,
    policy,
    onStep,
    quotes,
    executor: createExecutor({
      chains,
      ledger,
      clock,
      onStep,
      quoteSafetyMarginMs: timing.quoteSafetyMarginMs,
      txTimeoutMs: timing.txTimeoutMs,
      pay: createPayClient({
        fetch: tollgateFetch,
        signer: account,
        clock,
        sleep: options.sleep ?? systemSleep,
        payDeadlineMs: timing.payDeadlineMs,
        maxBackoffMs: timing.maxBackoffMs,
        onStep,
        persist: () => ledger.persist(),
        recordFailure: (record, reason, detail) => ledger.recordFailure(record, reason, detail),
      }),
    }),
  });
  const x402 =
    options.x402Assets && options.x402Assets.length > 0
      ? createX402Payer({
          account,
          assets: options.x402Assets,
          policy,
          ledger,
          hasChain: (chainId) => chains.has(chainId),
          clock,
          sleep: options.sleep ?? systemSleep,
          onStep,
          payDeadlineMs: timing.payDeadlineMs,
          maxBackoffMs: timing.maxBackoffMs,
        })
      : undefined;
  /** Learned from challenges: which purchase key a URL (origin + path) needs. */
  const siteKeys = new Map<string, string>();

  /** Records a paid response's `AIFP-Quota-Remaining` against the receipt it was sent with. */
  async function noteRemaining(key: string, receipt: ReceiptRecord, response: Response) {
    const header = response.headers.get(QUOTA_REMAINING_HEADER);
    if (header === null || !/^\d+$/.test(header)) return null;
    const remaining = Number(header);
    await ledger.updateRemaining(key, receipt.receiptId, remaining);
    return remaining;
  }

  async function agentFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    await ledger.load();
    const request = new Request(input, init);
    // Buffered once so the request can be repeated with the receipt.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const site = siteOf(request.url);
    const send = (receipt: string | undefined, extra: Record<string, string> = {}) => {
      const headers = new Headers(request.headers);
      if (receipt) headers.set(RECEIPT_HEADER, receipt);
      else headers.delete(RECEIPT_HEADER);
      for (const [name, value] of Object.entries(extra)) headers.set(name, value);
      return fetchImpl(request.url, {
        method: request.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: request.signal,
        redirect: request.redirect,
      });
    };

    let key = siteKeys.get(site);
    let receipt = key ? await ledger.usableReceipt(key) : undefined;
    let freshlyBought = false;
    let purchases = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS_PER_CALL; attempt++) {
      if (receipt && !freshlyBought)
        await onStep({ type: "receipt_reused", receiptId: receipt.receiptId, remaining: receipt.remaining });
      const response = await send(receipt?.receipt);
      if (response.status !== 402) {
        const remaining = receipt && key ? await noteRemaining(key, receipt, response) : null;
        await onStep({ type: "response", status: response.status, quotaRemaining: remaining });
        return response;
      }
      const json = await readJson(response.clone());
      const parsed = ZGateChallenge.safeParse(json);
      if (!parsed.success) {
        // Not an AIFP-1 gate: an x402 402 is paid when it can be, anything else goes to the caller as is.
        const x402Challenge = x402 ? parseX402Challenge(response, json) : undefined;
        if (!x402 || !x402Challenge) return response;
        const paid = await x402.pay(
          request.url,
          x402Challenge,
          (headers) => send(undefined, headers),
          policy.allowedOrigins,
        );
        if (!paid) return response;
        await response.body?.cancel();
        await onStep({ type: "response", status: paid.status, quotaRemaining: null });
        return paid;
      }
      const challenge = parsed.data;
      await onStep({
        type: "challenge",
        url: request.url,
        code: challenge.code,
        merchantId: challenge.merchant_id,
        resource: challenge.resource,
        tier: challenge.tier,
        unitPrice: challenge.unit_price,
      });
      if (receipt && freshlyBought && challenge.code === "receipt_invalid") {
        throw new AgentError(
          "receipt_refused",
          `the gate refused receipt ${receipt.receiptId} just bought for it: ${challenge.detail ?? ""}`,
        );
      }
      const endpoints = endpointsOf(challenge, policy.allowedOrigins);
      key = purchaseKey(endpoints.origin, challenge);
      siteKeys.set(site, key);
      if (receipt) await ledger.forgetReceipt(key, receipt.receiptId); // refused or used up
      const cached = await ledger.usableReceipt(key);
      if (cached && cached.receiptId !== receipt?.receiptId) {
        receipt = cached;
        freshlyBought = false;
        await response.body?.cancel();
        continue;
      }
      if (purchases >= MAX_PURCHASES_PER_CALL) return response;
      purchases += 1;
      await response.body?.cancel();
      receipt = await purchaser.buy(key, challenge, endpoints);
      freshlyBought = true;
    }
    throw new AgentError(
      "too_many_attempts",
      `gave up on ${request.url} after ${MAX_ATTEMPTS_PER_CALL} attempts`,
    );
  }

  /** A quote for what `input` sells, with every pre-signing check run; nothing is signed or sent on chain. */
  async function agentQuote(input: string | URL | Request, init?: RequestInit): Promise<QuoteResult> {
    const request = new Request(input, init);
    const response = await fetchImpl(request);
    if (response.status !== 402) return { response };
    const json = await readJson(response.clone());
    const parsed = ZGateChallenge.safeParse(json);
    if (!parsed.success) {
      const x402Challenge = x402 ? parseX402Challenge(response, json) : undefined;
      const offer = x402Challenge && x402?.offer(request.url, x402Challenge, policy.allowedOrigins);
      if (!offer) return { response };
      await response.body?.cancel();
      return { x402: offer };
    }
    await response.body?.cancel();
    const challenge = parsed.data;
    const endpoints = endpointsOf(challenge, policy.allowedOrigins);
    checkMerchantAllowed(policy, challenge.merchant_id);
    const quote = await quotes.request(challenge, endpoints);
    await quotes.check(quote, challenge, endpoints);
    return { challenge, quote };
  }

  return {
    address: account.address,
    fetch: agentFetch,
    quote: agentQuote,
    resumePending: () => purchaser.resumePending(),
    spentInPeriod: async () => formatUsd(await ledger.spentInPeriod()),
    failedPayments: () => ledger.failedPayments(),
  };
}
