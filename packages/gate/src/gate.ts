/**
 * The merchant-side gate: Express 5 middleware that answers 402 with an AIFP-1 challenge until a valid
 * receipt comes, then meters the receipt's quota (DESIGN.md §6 "402 from a gate" and "Gate middleware",
 * §7 errors; SPEC §1 steps 1 and 5, §2.5, §5).
 *
 * Outcomes:
 * - no `AIFP-Receipt` header: 402 `payment_required` with the challenge;
 * - a receipt that does not verify (signature, alg, typ, kid, iss, aud, exp, nbf, scope, tier): 402
 *   `receipt_invalid` with a fresh challenge and a `detail` naming the reason;
 * - quota used up: 402 `quota_exhausted` with a fresh challenge;
 * - a receipt listed in the revocation feed (docs/receipts.md): 402 `receipt_revoked`; below `minConfirmations`:
 *   402 `receipt_invalid`; feed stale with `strictRevocations`: 503 `revocation_feed_stale`;
 * - receipt keys unobtainable (JWKS down, nothing cached): 503 `jwks_unavailable`; quota store unreachable:
 *   503 `service_unavailable`. Nothing passes unverified or unmetered.
 * - otherwise `AIFP-Quota-Remaining` is set, the claims are attached to `req.aifp` and `res.locals.aifp`, and
 *   the next handler runs. If the response ends with a 5xx the units are given back (option
 *   `refundOnServerError`, default on), or the handler calls {@link refundOnFailure} itself.
 */
import {
  type ChallengeReason,
  QUOTA_REMAINING_HEADER,
  RECEIPT_HEADER,
  type ReceiptClaims,
} from "@tollgate/shared/aifp";
import { AppError } from "@tollgate/shared/errors";
import { writeProblem } from "@tollgate/shared/problem";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { buildChallenge, sendChallenge } from "./challenge";
import type { GateContext, GateOptions } from "./gate-options";
import { type GateSetup, resolveGateSetup } from "./gate-setup";
import { confirmationShortfall, RevocationFeed, type RevocationSource } from "./revocations";

export { buildChallenge, defaultResource, sendChallenge, sendProblem } from "./challenge";
export type { GateContext, GateOptions } from "./gate-options";

/**
 * Gives the units of the current paid request back, once (the hosted gateway calls it when the upstream fails;
 * a route handler may call it before answering an error it does not want to charge for). Resolves false when
 * the request was not paid or was already refunded.
 */
export function refundOnFailure(res: Response): Promise<boolean> {
  return res.locals.aifp?.refund() ?? Promise.resolve(false);
}

/**
 * Express middleware selling one route on one tier (DESIGN.md §6 "Gate middleware"; SPEC §1). See the module
 * comment for every outcome.
 */
export function gate(options: GateOptions): RequestHandler {
  const setup = resolveGateSetup(options);
  return async function tollgateGate(req, res, next) {
    let resource: string;
    try {
      resource = setup.resourceOf(req);
    } catch (error) {
      fail({ setup, req, res }, error);
      return;
    }
    const call: GateCall = { setup, req, res, resource };
    const token = req.get(RECEIPT_HEADER)?.trim();
    if (!token) {
      await challenge(call, "payment_required");
      return;
    }
    const claims = await verifiedClaims(call, token);
    if (!claims) return;
    const shortfall = confirmationShortfall(claims, setup.minConfirmations);
    if (shortfall) {
      await challenge(call, "receipt_invalid", `confirmations: ${shortfall}`);
      return;
    }
    if (await refusedByRevocations(call, claims)) return;
    const remaining = await meter(call, claims);
    if (remaining === undefined) return;
    admit(call, next, claims, remaining);
  };
}

/** One request through one gate, once its resource is known. */
interface GateCall {
  setup: GateSetup;
  req: Request;
  res: Response;
  resource: string;
}

/** Answers a 5xx problem for `error` (an unknown one as `internal_error`) after reporting it to `onError`. */
function fail({ setup, req, res }: Omit<GateCall, "resource">, error: unknown): void {
  const appError =
    error instanceof AppError ? error : new AppError("internal_error", undefined, { cause: error });
  setup.onError(appError, req);
  // A request id already given to this response (the API's, on /g) is echoed in the problem, so one id traces it.
  const requestId = res.getHeader("x-request-id");
  writeProblem(res, appError, typeof requestId === "string" ? { requestId } : {});
}

/** Answers a 402 with a fresh challenge at the tier's current price (a 5xx when the price is unobtainable). */
async function challenge(call: GateCall, code: ChallengeReason, detail?: string): Promise<void> {
  const { setup, req, res, resource } = call;
  const { options } = setup;
  let unitPrice: string;
  try {
    unitPrice = await setup.prices.unitPrice(options.tier);
  } catch (error) {
    fail(call, error);
    return;
  }
  const built = buildChallenge({
    apiBaseUrl: setup.apiBaseUrl,
    merchantId: options.merchantId,
    resource,
    tier: options.tier,
    unitPrice,
    code,
    ...(detail === undefined ? {} : { detail }),
  });
  if (options.challengeHeaders) {
    try {
      res.set(await options.challengeHeaders(req, built));
    } catch (error) {
      setup.onError(error, req);
    }
  }
  sendChallenge(res, built);
}

/** The receipt's claims, or undefined once the request was answered (a 402 for a bad receipt, a 5xx). */
async function verifiedClaims(call: GateCall, token: string): Promise<ReceiptClaims | undefined> {
  const { setup, resource } = call;
  const { options } = setup;
  let verdict: Awaited<ReturnType<GateSetup["verifier"]["verify"]>>;
  try {
    verdict = await setup.verifier.verify(token, {
      merchantId: options.merchantId,
      resource,
      tier: options.tier,
    });
  } catch (error) {
    fail(call, error); // jwks_unavailable -> 503; never let the call through unverified
    return undefined;
  }
  if (!verdict.ok) {
    await challenge(call, "receipt_invalid", `${verdict.reason}: ${verdict.detail}`);
    return undefined;
  }
  return verdict.claims;
}

/** True once the request was answered because the feed lists the receipt, or is stale under `strictRevocations`. */
async function refusedByRevocations(call: GateCall, claims: ReceiptClaims): Promise<boolean> {
  const { revocations } = call.setup;
  if (!revocations) return false;
  if (revocations instanceof RevocationFeed) await revocations.ready();
  let listed: Awaited<ReturnType<RevocationSource["check"]>>;
  try {
    listed = await revocations.check(claims.jti);
  } catch (error) {
    fail(call, new AppError("service_unavailable", undefined, { cause: error }));
    return true;
  }
  if (listed.status === "listed") {
    const why = listed.state === "revoked" ? "never came back" : "was orphaned by a reorg";
    await challenge(call, "receipt_revoked", `receipt ${claims.jti} is ${listed.state}: its payment ${why}`);
    return true;
  }
  if (listed.status === "stale" && call.setup.options.strictRevocations) {
    fail(call, new AppError("revocation_feed_stale", "the revocation feed could not be read recently"));
    return true;
  }
  return false;
}

/** Takes this request's units from the receipt; the units left, or undefined once the request was answered. */
async function meter(call: GateCall, claims: ReceiptClaims): Promise<number | undefined> {
  const { setup } = call;
  const { units } = setup;
  let metered: Awaited<ReturnType<GateSetup["store"]["consume"]>>;
  try {
    metered = await setup.store.consume(claims.jti, claims.quota, units, claims.exp);
  } catch (error) {
    fail(
      call,
      error instanceof AppError ? error : new AppError("service_unavailable", undefined, { cause: error }),
    );
    return undefined;
  }
  if (!metered.ok) {
    await challenge(
      call,
      "quota_exhausted",
      `receipt ${claims.jti} has ${metered.remaining} of ${claims.quota} units left; this request needs ${units}`,
    );
    return undefined;
  }
  return metered.remaining;
}

/** Attaches the paid request's context, sets the quota header, arms the 5xx refund and runs the handler. */
function admit(
  { setup, req, res }: GateCall,
  next: NextFunction,
  claims: ReceiptClaims,
  remaining: number,
): void {
  const { store, units } = setup;
  let refunded = false;
  const context: GateContext = {
    claims,
    receiptId: claims.jti,
    units,
    remaining,
    async refund() {
      if (refunded) return false;
      refunded = true;
      try {
        await store.refund(claims.jti, units);
        return true;
      } catch (error) {
        setup.onError(error, req);
        return false;
      }
    },
  };
  req.aifp = context;
  res.locals.aifp = context;
  res.setHeader(QUOTA_REMAINING_HEADER, String(remaining));
  if (setup.refundOnServerError) {
    res.once("finish", () => {
      if (res.statusCode >= 500) void context.refund();
    });
  }
  next();
}
