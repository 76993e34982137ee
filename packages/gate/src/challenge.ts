/**
 * The 402 a gate answers (DESIGN.md §6 "402 from a gate"): the AIFP-1 challenge body, its headers, and the
 * problem+json writer for the gate's own failures. Exported for the hosted gateway, which answers the same.
 */
import {
  AIFP_PROTOCOL,
  type ChallengeReason,
  type GateChallenge,
  HOW_TO_PAY,
  JWKS_PATH,
  PAY_PATH,
  QUOTE_PATH,
  wwwAuthenticateHeader,
} from "@tollgate/shared/aifp";
import type { AppError } from "@tollgate/shared/errors";
import { formatUsd, MIN_PAYMENT_MICRO_USD } from "@tollgate/shared/money";
import { writeProblem } from "@tollgate/shared/problem";
import type { Request, Response } from "express";

/** The challenge a gate would send for `resource` (DESIGN.md §6); exported for the hosted gateway. */
export function buildChallenge(input: {
  apiBaseUrl: string;
  merchantId: string;
  resource: string;
  tier: string;
  unitPrice: string;
  code: ChallengeReason;
  detail?: string;
}): GateChallenge {
  const base = input.apiBaseUrl.replace(/\/+$/, "");
  return {
    error: "Payment Required",
    code: input.code,
    protocol: AIFP_PROTOCOL,
    merchant_id: input.merchantId,
    resource: input.resource,
    tier: input.tier,
    unit_price: input.unitPrice,
    min_payment: formatUsd(MIN_PAYMENT_MICRO_USD),
    quote_url: `${base}${QUOTE_PATH}`,
    pay_url: `${base}${PAY_PATH}`,
    jwks_url: `${base}${JWKS_PATH}`,
    how_to_pay: [...HOW_TO_PAY],
    ...(input.detail === undefined ? {} : { detail: input.detail }),
  };
}

/** Writes a challenge as the 402 response: JSON body, `WWW-Authenticate`, `Cache-Control: no-store`. */
export function sendChallenge(res: Response, challenge: GateChallenge): void {
  res
    .status(402)
    .set({
      "WWW-Authenticate": wwwAuthenticateHeader(challenge),
      "Cache-Control": "no-store",
      "Content-Type": "application/json; charset=utf-8",
    })
    .send(JSON.stringify(challenge));
}

/**
 * Writes an AppError as problem+json (DESIGN.md §7): the one writer of `@tollgate/shared`, the same the Tollgate
 * API answers with (no-store, `Retry-After` on 503, 5xx details never leaked).
 */
export const sendProblem: (res: Response, error: AppError) => void = writeProblem;

/** The default resource: the path of the URL as received, without the query string. */
export function defaultResource(req: Request): string {
  return new URL(req.originalUrl, "http://gate.invalid").pathname;
}
