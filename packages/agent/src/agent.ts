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
import {
  formatUsd,
  type GateChallenge,
  parseUsd,
  QUOTA_REMAINING_HEADER,
  RECEIPT_HEADER,
  ZGateChallenge,
} from "@tollgate/shared";
import { type AgentParts, wireAgent } from "./agent-wiring";
import { endpointsOf } from "./checks";
import { AgentError } from "./errors";
import { readJson } from "./http-json";
import { checkMerchantAllowed, checkPerCall } from "./limits";
import type { Agent, AgentOptions, QuoteResult } from "./options";
import { purchaseKey } from "./purchase";
import { type Challenge402, chooseRail, type PayOptions, type Rail, totalCost } from "./rails";
import type { ReceiptRecord } from "./store";
import { closeChannel, listChannels } from "./x402-channels";
import { parseX402Challenge } from "./x402-wire";

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
  const parts = wireAgent(options);
  const { purchaser, ledger } = parts;
  const rails: Rail<AifpCall>[] = [aifp1Rail(parts), ...parts.rails];
  return {
    address: options.account.address,
    fetch: (input, init, pay) => agentFetch(parts, rails, input, init, { ...options.pay, ...pay }),
    quote: (input, init) => agentQuote(parts, input, init),
    resumePending: () => purchaser.resumePending(),
    spentInPeriod: async () => formatUsd(await ledger.spentInPeriod()),
    failedPayments: () => ledger.failedPayments(),
    channels: async () => {
      await ledger.load();
      return listChannels(parts.channels);
    },
    closeChannel: async (channelId, closeOptions) => {
      await ledger.load();
      return closeChannel(parts.channels, channelId, closeOptions);
    },
  };
}

/** Sends the caller's request again, with a receipt (or none) and extra headers. */
type Send = (receipt: string | undefined, extra?: Record<string, string>) => Promise<Response>;

/** What one `fetch` call learned so far: the purchase key, the receipt it sends and how many it bought. */
interface FetchState {
  key: string | undefined;
  receipt: ReceiptRecord | undefined;
  freshlyBought: boolean;
  purchases: number;
}

/** What the AIFP-1 rail needs of the `fetch` call it serves. */
interface AifpCall {
  state: FetchState;
  site: string;
  /** The caller's expected calls (the batch-settlement rail sizes its deposit for them). */
  expectedCalls: number;
}

/**
 * The `aifp1` rail: an AIFP-1 challenge is answered by buying (or reusing) a receipt through Tollgate; its cost is
 * the unit price times the expected calls (one receipt carries a quota of units, so the calls share one purchase).
 */
function aifp1Rail(parts: AgentParts): Rail<AifpCall> {
  return {
    id: "aifp1",
    canPay: (challenge) => challenge.aifp1 !== undefined,
    estimateCost: async (challenge, expectedCalls) =>
      challenge.aifp1 && {
        priceMicroUsd: parseUsd(challenge.aifp1.unit_price) * BigInt(expectedCalls),
        feesMicroUsd: 0n,
      },
    async pay(challenge, _resend, call) {
      const gate = challenge.aifp1 as GateChallenge;
      const answer = await answerChallenge(
        parts,
        call.state,
        call.site,
        challenge.url,
        challenge.response,
        gate,
      );
      return answer ? { response: answer } : { resend: true };
    },
  };
}

async function agentFetch(
  parts: AgentParts,
  rails: readonly Rail<AifpCall>[],
  input: string | URL | Request,
  init: RequestInit | undefined,
  payOptions: PayOptions,
): Promise<Response> {
  const { ledger, onStep } = parts;
  await ledger.load();
  const request = new Request(input, init);
  // Buffered once so the request can be repeated with the receipt.
  const body = request.body ? await request.arrayBuffer() : undefined;
  const site = siteOf(request.url);
  const send = resender(parts.fetchImpl, request, body);
  const key = parts.siteKeys.get(site);
  const state: FetchState = {
    key,
    receipt: key ? await ledger.usableReceipt(key) : undefined,
    freshlyBought: false,
    purchases: 0,
  };
  for (let attempt = 0; attempt < MAX_ATTEMPTS_PER_CALL; attempt++) {
    const { receipt } = state;
    if (receipt && !state.freshlyBought)
      await onStep({ type: "receipt_reused", receiptId: receipt.receiptId, remaining: receipt.remaining });
    const response = await send(receipt?.receipt);
    if (response.status !== 402) {
      const remaining =
        receipt && state.key ? await noteRemaining(parts, state.key, receipt, response) : null;
      await onStep({ type: "response", status: response.status, quotaRemaining: remaining });
      return response;
    }
    const json = await readJson(response.clone());
    const parsed = ZGateChallenge.safeParse(json);
    const challenge: Challenge402 = {
      url: request.url,
      response,
      body: json,
      aifp1: parsed.success ? parsed.data : undefined,
    };
    // A 402 no rail can pay goes back to the caller as it came.
    const chosen = await chooseRail(rails, challenge, payOptions);
    if (!chosen) return response;
    await onStep({
      type: "rail_chosen",
      rail: chosen.rail.id,
      expectedCalls: payOptions.expectedCalls ?? 1,
      estimatedUsd: chosen.cost ? formatUsd(totalCost(chosen.cost)) : null,
    });
    // The per-call cap, on what one call costs on the chosen rail, before the rail signs anything (decision 0087).
    const perCall = await chosen.rail.estimateCost(challenge, 1);
    if (perCall) checkPerCall(parts.policy, perCall.priceMicroUsd);
    const outcome = await chosen.rail.pay(challenge, (headers) => send(undefined, headers), {
      state,
      site,
      expectedCalls: payOptions.expectedCalls ?? 1,
    });
    if (outcome.response === response) return response;
    if (outcome.response) {
      await response.body?.cancel().catch(() => undefined);
      await onStep({ type: "response", status: outcome.response.status, quotaRemaining: null });
      return outcome.response;
    }
  }
  throw new AgentError(
    "too_many_attempts",
    `gave up on ${request.url} after ${MAX_ATTEMPTS_PER_CALL} attempts`,
  );
}

function resender(fetchImpl: typeof fetch, request: Request, body: ArrayBuffer | undefined): Send {
  return (receipt, extra = {}) => {
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
}

/** Records a paid response's `AIFP-Quota-Remaining` against the receipt it was sent with. */
async function noteRemaining(parts: AgentParts, key: string, receipt: ReceiptRecord, response: Response) {
  const header = response.headers.get(QUOTA_REMAINING_HEADER);
  if (header === null || !/^\d+$/.test(header)) return null;
  const remaining = Number(header);
  await parts.ledger.updateRemaining(key, receipt.receiptId, remaining);
  return remaining;
}

/**
 * Answers an AIFP-1 challenge: switches to a held receipt or buys one (updating `state`) and resolves undefined
 * so the request is sent again; resolves the 402 itself once this call bought its allowance.
 */
async function answerChallenge(
  parts: AgentParts,
  state: FetchState,
  site: string,
  url: string,
  response: Response,
  challenge: GateChallenge,
): Promise<Response | undefined> {
  const { ledger, policy } = parts;
  await parts.onStep({
    type: "challenge",
    url,
    code: challenge.code,
    merchantId: challenge.merchant_id,
    resource: challenge.resource,
    tier: challenge.tier,
    unitPrice: challenge.unit_price,
  });
  const { receipt } = state;
  if (receipt && state.freshlyBought && challenge.code === "receipt_invalid") {
    throw new AgentError(
      "receipt_refused",
      `the gate refused receipt ${receipt.receiptId} just bought for it: ${challenge.detail ?? ""}`,
    );
  }
  const endpoints = endpointsOf(challenge, policy.allowedOrigins);
  const key = purchaseKey(endpoints.origin, challenge);
  state.key = key;
  parts.siteKeys.set(site, key);
  if (receipt) await ledger.forgetReceipt(key, receipt.receiptId); // refused or used up
  const cached = await ledger.usableReceipt(key);
  if (cached && cached.receiptId !== receipt?.receiptId) {
    state.receipt = cached;
    state.freshlyBought = false;
    await response.body?.cancel();
    return undefined;
  }
  if (state.purchases >= MAX_PURCHASES_PER_CALL) return response;
  state.purchases += 1;
  await response.body?.cancel();
  state.receipt = await parts.purchaser.buy(key, challenge, endpoints);
  state.freshlyBought = true;
  return undefined;
}

/** A quote for what `input` sells, with every pre-signing check run; nothing is signed or sent on chain. */
async function agentQuote(
  parts: AgentParts,
  input: string | URL | Request,
  init?: RequestInit,
): Promise<QuoteResult> {
  const { x402, policy, quotes } = parts;
  const request = new Request(input, init);
  const response = await parts.fetchImpl(request);
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
