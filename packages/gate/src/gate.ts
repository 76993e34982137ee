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
  JWKS_PATH,
  QUOTA_REMAINING_HEADER,
  RECEIPT_HEADER,
} from "@tollgate/shared/aifp";
import { AppError } from "@tollgate/shared/errors";
import { writeProblem } from "@tollgate/shared/problem";
import type { Request, RequestHandler, Response } from "express";
import { buildChallenge, defaultResource, sendChallenge } from "./challenge";
import type { GateContext, GateOptions } from "./gate-options";
import { fixedPrice, merchantPriceSource } from "./price";
import { MemoryQuotaStore, type QuotaStore } from "./quota";
import {
  confirmationShortfall,
  RevocationFeed,
  type RevocationSource,
  sharedRevocationFeed,
} from "./revocations";
import { createReceiptVerifier, type ReceiptVerifier } from "./verifier";

export { buildChallenge, defaultResource, sendChallenge, sendProblem } from "./challenge";
export type { GateContext, GateOptions } from "./gate-options";

let sharedQuotaStore: MemoryQuotaStore | undefined;
function processQuotaStore(): MemoryQuotaStore {
  sharedQuotaStore ??= new MemoryQuotaStore();
  return sharedQuotaStore;
}

/**
 * Gives the units of the current paid request back, once (the hosted gateway calls it when the upstream fails;
 * a route handler may call it before answering an error it does not want to charge for). Resolves false when
 * the request was not paid or was already refunded.
 */
export function refundOnFailure(res: Response): Promise<boolean> {
  return res.locals.aifp?.refund() ?? Promise.resolve(false);
}

function defaultOnError(error: unknown): void {
  const cause = error instanceof AppError && error.cause !== undefined ? error.cause : error;
  const text = cause instanceof Error ? cause.message : String(cause);
  const code = error instanceof AppError ? error.code : "internal_error";
  console.warn(`[tollgate/gate] ${code}: ${text}`);
}

/**
 * Express middleware selling one route on one tier (DESIGN.md §6 "Gate middleware"; SPEC §1). See the module
 * comment for every outcome.
 */
export function gate(options: GateOptions): RequestHandler {
  const apiBaseUrl = options.apiBaseUrl.replace(/\/+$/, "");
  const units = options.unitsPerRequest ?? 1;
  if (!Number.isSafeInteger(units) || units < 1)
    throw new TypeError("unitsPerRequest must be a positive integer");
  if (!options.merchantId) throw new TypeError("merchantId is required");
  if (!options.tier) throw new TypeError("tier is required");
  const fetchOptions = options.fetchImpl ? { fetchImpl: options.fetchImpl } : {};
  const verifier =
    options.verifier ??
    createReceiptVerifier({ issuer: apiBaseUrl, jwksUrl: `${apiBaseUrl}${JWKS_PATH}`, ...fetchOptions });
  if (verifier.issuer !== apiBaseUrl) {
    throw new TypeError(`verifier issuer ${verifier.issuer} differs from apiBaseUrl ${apiBaseUrl}`);
  }
  const store = options.quotaStore ?? processQuotaStore();
  const prices =
    options.priceSource ??
    (options.price !== undefined
      ? fixedPrice(options.price)
      : merchantPriceSource({ apiBaseUrl, merchantId: options.merchantId, ...fetchOptions }));
  const refundOnServerError = options.refundOnServerError ?? true;
  const min = options.minConfirmations;
  if (min !== undefined && min !== "finality" && (!Number.isSafeInteger(min) || min < 0))
    throw new TypeError('minConfirmations must be a non-negative integer or "finality"');
  const revocations =
    options.revocations === false
      ? undefined
      : (options.revocations ?? sharedRevocationFeed(apiBaseUrl, options.merchantId, options.fetchImpl));
  const onError = options.onError ?? defaultOnError;
  const resourceOf =
    typeof options.resource === "function"
      ? options.resource
      : typeof options.resource === "string"
        ? (() => {
            const fixed = options.resource;
            return () => fixed;
          })()
        : defaultResource;

  function fail(req: Request, res: Response, error: unknown) {
    const appError =
      error instanceof AppError ? error : new AppError("internal_error", undefined, { cause: error });
    onError(appError, req);
    // A request id already given to this response (the API's, on /g) is echoed in the problem, so one id traces it.
    const requestId = res.getHeader("x-request-id");
    writeProblem(res, appError, typeof requestId === "string" ? { requestId } : {});
  }

  async function challenge(
    req: Request,
    res: Response,
    resource: string,
    code: ChallengeReason,
    detail?: string,
  ) {
    let unitPrice: string;
    try {
      unitPrice = await prices.unitPrice(options.tier);
    } catch (error) {
      fail(req, res, error);
      return;
    }
    const built = buildChallenge({
      apiBaseUrl,
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
        onError(error, req);
      }
    }
    sendChallenge(res, built);
  }

  return async function tollgateGate(req, res, next) {
    let resource: string;
    try {
      resource = resourceOf(req);
    } catch (error) {
      fail(req, res, error);
      return;
    }
    const token = req.get(RECEIPT_HEADER)?.trim();
    if (!token) {
      await challenge(req, res, resource, "payment_required");
      return;
    }

    let verdict: Awaited<ReturnType<ReceiptVerifier["verify"]>>;
    try {
      verdict = await verifier.verify(token, {
        merchantId: options.merchantId,
        resource,
        tier: options.tier,
      });
    } catch (error) {
      fail(req, res, error); // jwks_unavailable -> 503; never let the call through unverified
      return;
    }
    if (!verdict.ok) {
      await challenge(req, res, resource, "receipt_invalid", `${verdict.reason}: ${verdict.detail}`);
      return;
    }

    const { claims } = verdict;
    const shortfall = confirmationShortfall(claims, min);
    if (shortfall) {
      await challenge(req, res, resource, "receipt_invalid", `confirmations: ${shortfall}`);
      return;
    }
    if (revocations) {
      if (revocations instanceof RevocationFeed) await revocations.ready();
      let listed: Awaited<ReturnType<RevocationSource["check"]>>;
      try {
        listed = await revocations.check(claims.jti);
      } catch (error) {
        fail(req, res, new AppError("service_unavailable", undefined, { cause: error }));
        return;
      }
      if (listed.status === "listed") {
        const why = listed.state === "revoked" ? "never came back" : "was orphaned by a reorg";
        await challenge(
          req,
          res,
          resource,
          "receipt_revoked",
          `receipt ${claims.jti} is ${listed.state}: its payment ${why}`,
        );
        return;
      }
      if (listed.status === "stale" && options.strictRevocations) {
        fail(
          req,
          res,
          new AppError("revocation_feed_stale", "the revocation feed could not be read recently"),
        );
        return;
      }
    }
    let metered: Awaited<ReturnType<QuotaStore["consume"]>>;
    try {
      metered = await store.consume(claims.jti, claims.quota, units, claims.exp);
    } catch (error) {
      fail(
        req,
        res,
        error instanceof AppError ? error : new AppError("service_unavailable", undefined, { cause: error }),
      );
      return;
    }
    if (!metered.ok) {
      await challenge(
        req,
        res,
        resource,
        "quota_exhausted",
        `receipt ${claims.jti} has ${metered.remaining} of ${claims.quota} units left; this request needs ${units}`,
      );
      return;
    }

    let refunded = false;
    const context: GateContext = {
      claims,
      receiptId: claims.jti,
      units,
      remaining: metered.remaining,
      async refund() {
        if (refunded) return false;
        refunded = true;
        try {
          await store.refund(claims.jti, units);
          return true;
        } catch (error) {
          onError(error, req);
          return false;
        }
      },
    };
    req.aifp = context;
    res.locals.aifp = context;
    res.setHeader(QUOTA_REMAINING_HEADER, String(metered.remaining));
    if (refundOnServerError) {
      res.once("finish", () => {
        if (res.statusCode >= 500) void context.refund();
      });
    }
    next();
  };
}
