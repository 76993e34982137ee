/**
 * Tier prices for the 402 challenge (DESIGN.md §6 `unit_price`; SPEC §2.1 tiers). They come from the public
 * merchant view `GET {apiBaseUrl}/v1/merchants/{merchantId}` (`tiers`: tier name -> USD decimal string),
 * fetched once and cached for a TTL. Only challenges need a price: paid requests with a valid receipt never
 * wait on this lookup, so they keep flowing while the API is down.
 */
import { AppError } from "@tollgate/shared/errors";
import { parseUsd } from "@tollgate/shared/money";
import type { FetchLike } from "./verifier";

/** Answers the USD unit price (decimal string, e.g. "0.01") of a tier. */
export interface PriceSource {
  unitPrice(tier: string): Promise<string>;
}

/** Checks a USD decimal string the way the API formats it (at most 6 decimals). */
export function isUsdString(value: string): boolean {
  try {
    parseUsd(value);
    return true;
  } catch {
    return false;
  }
}

/** A fixed price for offline use or tests; every tier gets it. */
export function fixedPrice(usd: string): PriceSource {
  if (!isUsdString(usd)) throw new TypeError(`price must be a USD decimal string such as "0.01", got ${usd}`);
  return { unitPrice: async () => usd };
}

export interface MerchantPriceSourceOptions {
  apiBaseUrl: string;
  merchantId: string;
  fetchImpl?: FetchLike;
  /** How long a fetched tier map is used. Default 60 s. */
  ttlMs?: number;
  /** After a failed fetch with nothing cached, further fetches wait this long. Default 2 s. */
  retryAfterErrorMs?: number;
  /** Fetch timeout. Default 5 s. */
  timeoutMs?: number;
  now?: () => number;
}

/**
 * Reads tier prices from the merchant's public view, caching them for `ttlMs`. Concurrent lookups share one
 * fetch. When a refresh fails, the previous map keeps serving; with nothing cached the lookup throws
 * `service_unavailable`. A missing merchant or tier is a configuration error (`internal_error`).
 */
export function merchantPriceSource(options: MerchantPriceSourceOptions): PriceSource {
  const url = `${options.apiBaseUrl.replace(/\/+$/, "")}/v1/merchants/${encodeURIComponent(options.merchantId)}`;
  const ttlMs = options.ttlMs ?? 60_000;
  const retryAfterErrorMs = options.retryAfterErrorMs ?? 2_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const now = options.now ?? Date.now;
  const doFetch: FetchLike = options.fetchImpl ?? ((input, init) => fetch(input, init));
  let tiers: Record<string, string> | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let failedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<Record<string, string>> | undefined;

  async function load(): Promise<Record<string, string>> {
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { accept: "application/json" },
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new AppError("service_unavailable", "merchant prices could not be fetched", { cause: error });
    }
    if (response.status === 404) {
      throw new AppError("internal_error", `merchant ${options.merchantId} is not registered at ${url}`);
    }
    if (response.status !== 200) {
      throw new AppError("service_unavailable", `merchant prices answered HTTP ${response.status}`);
    }
    const body = (await response.json().catch(() => undefined)) as { tiers?: unknown } | undefined;
    const raw = body?.tiers;
    if (!raw || typeof raw !== "object") {
      throw new AppError("service_unavailable", "merchant view has no tiers map");
    }
    const map: Record<string, string> = {};
    for (const [tier, price] of Object.entries(raw)) {
      if (typeof price === "string" && isUsdString(price)) map[tier] = price;
    }
    return map;
  }

  async function current(): Promise<Record<string, string>> {
    if (tiers && (now() - fetchedAt < ttlMs || now() - failedAt < retryAfterErrorMs)) return tiers;
    if (!tiers && now() - failedAt < retryAfterErrorMs) {
      throw new AppError("service_unavailable", "merchant prices could not be fetched (retrying shortly)");
    }
    pending ??= load()
      .then((map) => {
        tiers = map;
        fetchedAt = now();
        return map;
      })
      .catch((error: unknown) => {
        failedAt = now();
        throw error;
      })
      .finally(() => {
        pending = undefined;
      });
    try {
      return await pending;
    } catch (error) {
      if (tiers) return tiers; // stale but known: better than no challenge
      throw error;
    }
  }

  return {
    async unitPrice(tier) {
      const map = await current();
      const price = Object.hasOwn(map, tier) ? map[tier] : undefined;
      if (price === undefined) {
        throw new AppError("internal_error", `merchant ${options.merchantId} has no tier ${tier}`);
      }
      return price;
    },
  };
}
