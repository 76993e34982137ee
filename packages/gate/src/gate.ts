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
 * - a receipt listed in the revocation feed (issue 19): 402 `receipt_revoked`; below `minConfirmations`:
 *   402 `receipt_invalid`; feed stale with `strictRevocations`: 503 `revocation_feed_stale`;
 * - receipt keys unobtainable (JWKS down, nothing cached): 503 `jwks_unavailable`; quota store unreachable:
 *   503 `service_unavailable`. Nothing passes unverified or unmetered.
 * - otherwise `AIFP-Quota-Remaining` is set, the claims are attached to `req.aifp` and `res.locals.aifp`, and
 *   the next handler runs. If the response ends with a 5xx the units are given back (option
 *   `refundOnServerError`, default on), or the handler calls {@link refundOnFailure} itself.
 */
import {
  AIFP_PROTOCOL,
  type ChallengeReason,
  type GateChallenge,
  HOW_TO_PAY,
  JWKS_PATH,
  PAY_PATH,
  QUOTA_REMAINING_HEADER,
  QUOTE_PATH,
  RECEIPT_HEADER,
  type ReceiptClaims,
  wwwAuthenticateHeader,
} from "@tollgate/shared/aifp";
import { AppError } from "@tollgate/shared/errors";
import { formatUsd, MIN_PAYMENT_MICRO_USD } from "@tollgate/shared/money";
import { writeProblem } from "@tollgate/shared/problem";
import type { Request, RequestHandler, Response } from "express";
import { fixedPrice, merchantPriceSource, type PriceSource } from "./price";
import { MemoryQuotaStore, type QuotaStore } from "./quota";
import {
  confirmationShortfall,
  RevocationFeed,
  type RevocationSource,
  sharedRevocationFeed,
} from "./revocations";
import { createReceiptVerifier, type FetchLike, type ReceiptVerifier } from "./verifier";

/** What a paid request carries once the gate let it through. */
export interface GateContext {
  claims: ReceiptClaims;
  /** The receipt id (`jti`), the key of its quota counter. */
  receiptId: string;
  /** Units this request consumed. */
  units: number;
  /** Units left on the receipt after this request. */
  remaining: number;
  /** Gives this request's units back, once; later calls resolve false. */
  refund(): Promise<boolean>;
}

declare global {
  // Declaration merging is how Express types request and locals extensions.
  namespace Express {
    interface Request {
      /** Set by `@tollgate/gate` on paid requests. */
      aifp?: GateContext;
    }
    interface Locals {
      /** Set by `@tollgate/gate` on paid requests. */
      aifp?: GateContext;
    }
  }
}

export interface GateOptions {
  /** The merchant id (`mrch_...`); receipts must carry it as `aud`. */
  merchantId: string;
  /** The tier this route is sold on; receipts must carry it as `tier`. */
  tier: string;
  /**
   * The resource string receipts are scoped to (claim `scope`) and that the challenge names. Default: the
   * request's URL path as Express received it (`new URL(req.originalUrl).pathname`: mount path included,
   * query string excluded, no decoding), e.g. `/v1/search` for `GET /v1/search?q=x`. Routes with path
   * parameters get one resource per concrete path; pass a fixed string (or a function) to sell one receipt
   * for all of them. Agents copy `resource` from the 402 body into `POST /v1/quote`.
   */
  resource?: string | ((req: Request) => string);
  /** Tollgate API base URL; it is the receipt issuer and hosts quote, pay and the JWKS. */
  apiBaseUrl: string;
  /** Units each request takes from the receipt. Default 1. */
  unitsPerRequest?: number;
  /**
   * Default: one {@link MemoryQuotaStore} shared by every gate in this process (counters are keyed by the
   * globally unique receipt id, so gates selling one receipt on several routes spend one quota). Use a
   * `RedisQuotaStore` when several processes serve.
   */
  quotaStore?: QuotaStore;
  /** Default: a verifier for `apiBaseUrl` and its JWKS. Share one between gates to share caches. */
  verifier?: ReceiptVerifier;
  /** USD unit price shown in challenges instead of asking the API (offline use, tests). */
  price?: string;
  /** Where challenges get the tier price; default reads the merchant's public view. */
  priceSource?: PriceSource;
  /** Give units back when the response status is >= 500. Default true. */
  refundOnServerError?: boolean;
  /** Fetch for the default verifier and price source. */
  fetchImpl?: FetchLike;
  /**
   * Issue 19 (docs/receipts.md): where suspended and revoked receipts are learned. Default: a
   * {@link RevocationFeed} on `apiBaseUrl` for `merchantId` (one per merchant and API in this process), polled
   * every 15 s from the first paid request on. Pass your own feed to choose its interval and staleness window
   * and to read its `stats()`; `false` turns the check off.
   */
  revocations?: RevocationSource | false;
  /** While the feed is stale: answer 503 `revocation_feed_stale` (true) instead of serving (default false). */
  strictRevocations?: boolean;
  /**
   * Accept only receipts issued at or past this many confirmations; `"finality"`: at or past the receipt's
   * `finality_depth` (the network's reorg window). Default: whatever Tollgate issued.
   */
  minConfirmations?: number | "finality";
  /**
   * Extra headers on every 402 challenge (the hosted gateway adds the x402 `PAYMENT-REQUIRED` description of the
   * resource, issue 11). A failure here drops the extra headers, never the challenge.
   */
  challengeHeaders?: (req: Request, challenge: GateChallenge) => Promise<Record<string, string>>;
  /** Called with the cause of every 5xx the gate answers itself. Default: one `console.warn` line. */
  onError?: (error: unknown, req: Request) => void;
}

let sharedQuotaStore: MemoryQuotaStore | undefined;
function processQuotaStore(): MemoryQuotaStore {
  sharedQuotaStore ??= new MemoryQuotaStore();
  return sharedQuotaStore;
}

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
    // A request id already given to this response (the API's, on /g) is echoed in the problem (issue 18).
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
