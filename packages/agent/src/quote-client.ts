/**
 * The quote client (SPEC §1 steps 2-3; DESIGN.md §6): asks the challenge's Tollgate API for a quote, then
 * runs every check of checks.ts on it before anything may be signed.
 */
import {
  DEFAULT_NETWORKS,
  type EvmNetworkName,
  type GateChallenge,
  type QuoteAsset,
  type QuoteResponse,
  ZQuoteResponse,
} from "@tollgate/shared";
import type { Address } from "viem";
import {
  type ApiEndpoints,
  checkAtomicAmount,
  checkCallShape,
  checkQuoteMatchesChallenge,
  type JwksCache,
  verifySettlementCall,
} from "./checks";
import { type Clock, msUntil } from "./clock";
import { QuoteRejectedError } from "./errors";
import { type FetchLike, problemOf, readJson } from "./http-json";
import { checkNetworkAllowed, type SpendPolicy } from "./limits";

export interface QuoteClientDeps {
  /** Applies the request timeout (see http-json `timedFetch`). */
  fetch: FetchLike;
  payer: Address;
  preferences?: { network?: EvmNetworkName; asset?: QuoteAsset } | undefined;
  policy: SpendPolicy;
  /** Whether the agent can reach this chain id (a quote on any other chain is refused). */
  hasChain(chainId: number): boolean;
  jwks: JwksCache;
  clock: Clock;
  quoteSafetyMarginMs: number;
}

export interface QuoteClient {
  /** POSTs the quote request; throws QuoteRejectedError `quote_failed` unless a well-formed quote comes back. */
  request(challenge: GateChallenge, endpoints: ApiEndpoints): Promise<QuoteResponse>;
  /** Every check before spending; throws QuoteRejectedError. */
  check(quote: QuoteResponse, challenge: GateChallenge, endpoints: ApiEndpoints): Promise<void>;
}

/** Refuses a quote with no more than `marginMs` left: its transaction might be mined after it expired. */
export function checkQuoteTimeLeft(quote: QuoteResponse, clock: Clock, marginMs: number): void {
  const left = msUntil(clock, quote.expires_at);
  if (!(left > marginMs)) {
    throw new QuoteRejectedError(
      "quote_expired",
      `quote expires in ${Math.round(left / 1000)} s, below the safety margin`,
      { quoteId: quote.quote_id },
    );
  }
}

export function createQuoteClient(deps: QuoteClientDeps): QuoteClient {
  async function request(challenge: GateChallenge, endpoints: ApiEndpoints): Promise<QuoteResponse> {
    let response: Response;
    try {
      response = await deps.fetch(endpoints.quoteUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          merchant_id: challenge.merchant_id,
          resource: challenge.resource,
          tier: challenge.tier,
          payer: deps.payer,
          ...(deps.preferences?.network ? { network: deps.preferences.network } : {}),
          ...(deps.preferences?.asset ? { asset: deps.preferences.asset } : {}),
        }),
        redirect: "error",
      });
    } catch (error) {
      throw new QuoteRejectedError("quote_failed", `quote request failed: ${String(error)}`, {
        cause: error,
      });
    }
    const body = await readJson(response);
    if (response.status !== 200) {
      const problem = problemOf(body);
      throw new QuoteRejectedError(
        "quote_failed",
        `quote endpoint answered ${response.status} ${problem.code ?? ""}: ${problem.detail ?? ""}`,
        { status: response.status, ...(problem.code ? { problemCode: problem.code } : {}) },
      );
    }
    const parsed = ZQuoteResponse.safeParse(body);
    if (!parsed.success) {
      throw new QuoteRejectedError("quote_failed", `quote response is malformed: ${parsed.error.message}`, {
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  async function check(
    quote: QuoteResponse,
    challenge: GateChallenge,
    endpoints: ApiEndpoints,
  ): Promise<void> {
    checkQuoteMatchesChallenge(quote, challenge, deps.payer);
    // A known network's chain id is checked; a network only the service's manifest names is taken as quoted and
    // gated by the spend policy's allowed networks and the configured RPCs (decision 0057).
    const known = DEFAULT_NETWORKS.get(quote.network);
    if (known && known.chainId !== quote.chain_id) {
      throw new QuoteRejectedError("quote_mismatch", `chain ${quote.chain_id} is not ${quote.network}`, {
        quoteId: quote.quote_id,
      });
    }
    checkNetworkAllowed(deps.policy, quote.network, quote.quote_id);
    if (!deps.hasChain(quote.chain_id)) {
      throw new QuoteRejectedError("chain_not_configured", `no RPC configured for chain ${quote.chain_id}`);
    }
    checkQuoteTimeLeft(quote, deps.clock, deps.quoteSafetyMarginMs);
    checkCallShape(quote);
    checkAtomicAmount(quote);
    await verifySettlementCall({ quote, endpoints, payer: deps.payer, jwks: deps.jwks });
  }

  return { request, check };
}
