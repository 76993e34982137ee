/**
 * Payment rails (docs/decisions/0081-agent-payment-rails.md): one {@link Rail} per kind of 402 the agent pays, and
 * the choice between them when one 402 offers several (the bridge's 402 carries x402 `accepts` and `pay_matic`; the
 * hosted gateway's carries AIFP-1 and x402).
 * Invariants:
 * - a rail's `canPay` and `estimateCost` sign, spend and send nothing;
 * - the cheapest rail for the expected number of calls wins (cost = price x calls + the fees the agent knows of),
 *   ties going to the earlier rail in the agent's list; the caller may name the rail instead;
 * - every rail's `pay` checks the origin and commits the spend durably (ledger.ts) before it signs anything.
 */
import type { GateChallenge } from "@tollgate/shared";
import { QuoteRejectedError } from "./errors";

/** The rails the agent knows; `x402-upto` and `x402-batch-settlement` are reserved for the session schemes. */
export const RAIL_IDS = ["aifp1", "x402-exact", "pay-matic", "x402-upto", "x402-batch-settlement"] as const;
export type RailId = (typeof RAIL_IDS)[number];

/** A 402 as every rail reads it: the response, its JSON body (or undefined) and the AIFP-1 challenge if any. */
export interface Challenge402 {
  url: string;
  response: Response;
  body: unknown;
  aifp1: GateChallenge | undefined;
}

/** What paying a 402 on a rail would cost for `calls` calls, in micro-USD. */
export interface RailCost {
  /** Price of the calls themselves. */
  priceMicroUsd: bigint;
  /** Fees the payer bears on top (gas), as far as the agent knows them; 0 when a facilitator pays the gas. */
  feesMicroUsd: bigint;
}

/** Sends the caller's request again with `headers` added (the same method, URL and body). */
export type Resend = (headers: Record<string, string>) => Promise<Response>;

/** What a rail's `pay` did: the paid answer, or (AIFP-1) "send the request again, now with a receipt". */
export type RailOutcome = { response: Response; resend?: undefined } | { resend: true; response?: undefined };

export interface Rail<Call = unknown> {
  readonly id: RailId;
  /** Whether this 402 offers something this rail can pay with the agent's configuration (no I/O). */
  canPay(challenge: Challenge402): boolean;
  /** Cost of `expectedCalls` calls on this rail; undefined when it cannot tell (the rail is then not chosen). */
  estimateCost(challenge: Challenge402, expectedCalls: number): Promise<RailCost | undefined>;
  /** Pays. Throws SpendLimitError / QuoteRejectedError before signing, PaymentFailedError after. */
  pay(challenge: Challenge402, resend: Resend, call: Call): Promise<RailOutcome>;
}

/** Per-call options of `Agent.fetch`. */
export interface PayOptions {
  /** How many calls of this resource the caller expects to make; the rail choice weighs them. Default 1. */
  expectedCalls?: number;
  /** Pay on this rail only (refused with `rail_unavailable` when the 402 does not offer it). */
  rail?: RailId;
}

export function totalCost(cost: RailCost): bigint {
  return cost.priceMicroUsd + cost.feesMicroUsd;
}

/**
 * The rail that pays `challenge`: the caller's, or the cheapest for `expectedCalls`; undefined when none can
 * (the 402 then goes back to the caller as it came). Throws QuoteRejectedError `rail_unavailable` when the
 * caller named a rail this 402 does not offer.
 */
export async function chooseRail<R extends Rail<never>>(
  rails: readonly R[],
  challenge: Challenge402,
  options: PayOptions = {},
): Promise<{ rail: R; cost: RailCost | undefined } | undefined> {
  const expectedCalls = options.expectedCalls ?? 1;
  if (!Number.isSafeInteger(expectedCalls) || expectedCalls < 1) {
    throw new TypeError("expectedCalls must be a positive integer");
  }
  const payable = rails.filter((rail) => rail.canPay(challenge));
  if (options.rail !== undefined) {
    const named = payable.find((rail) => rail.id === options.rail);
    if (!named) {
      throw new QuoteRejectedError(
        "rail_unavailable",
        `this 402 offers nothing the ${options.rail} rail can pay (offered: ${payable.map((r) => r.id).join(", ") || "none"})`,
      );
    }
    return { rail: named, cost: await named.estimateCost(challenge, expectedCalls) };
  }
  let best: { rail: R; cost: RailCost } | undefined;
  for (const rail of payable) {
    const cost = await rail.estimateCost(challenge, expectedCalls);
    if (cost && (!best || totalCost(cost) < totalCost(best.cost))) best = { rail, cost };
  }
  return best;
}

/** Micro-USD of `wei` of a native token priced at `microUsdPerToken`, rounded up (limits never understate). */
export function microUsdOfWei(wei: bigint, microUsdPerToken: bigint): bigint {
  const scale = 10n ** 18n;
  return (wei * microUsdPerToken + scale - 1n) / scale;
}
