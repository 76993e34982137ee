/**
 * What an x402 `upto` call settles (docs/decisions/0085): the upstream reports what the call used in the response
 * header `x-tollgate-metered-amount` (atomic units of the paid token, a decimal integer); the bridge settles that,
 * capped at the authorised ceiling (the route's per-call price). Without the header the call costs the per-call
 * price. Invariants: never more than authorised; 0 only when the upstream reported 0 (`metered_zero`: nothing is
 * settled, no transaction), never by default (a malformed report counts as no report, logged); the reason is part of
 * the result, so the receipt says why this amount.
 */
import type { Logger } from "../../../infra/logger";
import type { DeliveredAnswer } from "../../paid-forward";

export const METERED_AMOUNT_HEADER = "x-tollgate-metered-amount";

export type MeterReason = "metered" | "metered_zero" | "capped" | "per_call_price";

export interface Metered {
  amount: bigint;
  reason: MeterReason;
}

const DECIMAL = /^[0-9]{1,78}$/;

/** The amount to settle for a delivered answer, at most `ceiling` (> 0). */
export function meteredAmount(delivered: DeliveredAnswer, ceiling: bigint, log: Logger): Metered {
  const entry = Object.entries(delivered.headers).find(
    ([name]) => name.toLowerCase() === METERED_AMOUNT_HEADER,
  );
  const raw = entry?.[1]?.trim();
  if (raw === undefined) return { amount: ceiling, reason: "per_call_price" };
  if (!DECIMAL.test(raw)) {
    log.warn(
      { reported: raw.slice(0, 100) },
      "x402 upto: unusable metered amount; the per-call price is settled",
    );
    return { amount: ceiling, reason: "per_call_price" };
  }
  const reported = BigInt(raw);
  if (reported === 0n) return { amount: 0n, reason: "metered_zero" };
  return reported > ceiling ? { amount: ceiling, reason: "capped" } : { amount: reported, reason: "metered" };
}
