/**
 * The gate's options resolved once, when a route is gated: defaults filled in (verifier, quota store, price
 * source, revocation feed, error log) and invalid options refused with a TypeError before any request comes.
 * The request handling itself is ./gate.ts.
 */
import { JWKS_PATH } from "@tollgate/shared/aifp";
import { AppError } from "@tollgate/shared/errors";
import type { Request } from "express";
import { defaultResource } from "./challenge";
import type { GateOptions } from "./gate-options";
import { fixedPrice, merchantPriceSource, type PriceSource } from "./price";
import { MemoryQuotaStore, type QuotaStore } from "./quota";
import { type RevocationSource, sharedRevocationFeed } from "./revocations";
import { createReceiptVerifier, type ReceiptVerifier } from "./verifier";

/** One gate's resolved configuration; every request of that gate reads it, none changes it. */
export interface GateSetup {
  options: GateOptions;
  apiBaseUrl: string;
  units: number;
  verifier: ReceiptVerifier;
  store: QuotaStore;
  prices: PriceSource;
  refundOnServerError: boolean;
  minConfirmations: number | "finality" | undefined;
  /** Undefined when the option turned the revocation check off. */
  revocations: RevocationSource | undefined;
  onError: (error: unknown, req: Request) => void;
  resourceOf: (req: Request) => string;
}

let sharedQuotaStore: MemoryQuotaStore | undefined;
function processQuotaStore(): MemoryQuotaStore {
  sharedQuotaStore ??= new MemoryQuotaStore();
  return sharedQuotaStore;
}

function defaultOnError(error: unknown): void {
  const cause = error instanceof AppError && error.cause !== undefined ? error.cause : error;
  const text = cause instanceof Error ? cause.message : String(cause);
  const code = error instanceof AppError ? error.code : "internal_error";
  console.warn(`[tollgate/gate] ${code}: ${text}`);
}

function resourceOfOption(resource: GateOptions["resource"]): (req: Request) => string {
  if (typeof resource === "function") return resource;
  if (typeof resource === "string") return () => resource;
  return defaultResource;
}

/** Resolves `options`; throws a TypeError for an invalid one (checked in this order). */
export function resolveGateSetup(options: GateOptions): GateSetup {
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
  const min = options.minConfirmations;
  if (min !== undefined && min !== "finality" && (!Number.isSafeInteger(min) || min < 0))
    throw new TypeError('minConfirmations must be a non-negative integer or "finality"');
  const revocations =
    options.revocations === false
      ? undefined
      : (options.revocations ?? sharedRevocationFeed(apiBaseUrl, options.merchantId, options.fetchImpl));
  return {
    options,
    apiBaseUrl,
    units,
    verifier,
    store,
    prices,
    refundOnServerError: options.refundOnServerError ?? true,
    minConfirmations: min,
    revocations,
    onError: options.onError ?? defaultOnError,
    resourceOf: resourceOfOption(options.resource),
  };
}
