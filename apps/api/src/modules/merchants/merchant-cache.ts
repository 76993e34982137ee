/**
 * The merchant read of the quote path, cached per process on the API's one cache (infra/cache.ts). Invariants:
 * - every merchant write in this process (`updateMerchant`, `rotateMerchantSecret`, `confirmPayoutChange`)
 *   calls `invalidate(id)` after its transaction commits, so the writing process quotes the new terms at once;
 * - other processes see a change within `ttlMs` (PAUSE_POLL_MS, the same bound as the operator pause);
 * - a read that started before an invalidation is never stored, so a slow read cannot put the old row back;
 * - misses (unknown merchants) are not cached: a new merchant is quotable at once everywhere;
 * - concurrent misses for one id share one read.
 */
import { type Cache, createCache } from "../../infra/cache";
import type { Clock } from "../../infra/clock";
import type { MerchantRecord } from "./merchant-service";

export type MerchantCache = Pick<Cache<MerchantRecord | undefined>, "get" | "invalidate">;

/** Upper bound on cached merchants; past it the least recently used goes. */
const MAX_ENTRIES = 10_000;

export function createMerchantCache(clock: Clock, ttlMs: number): MerchantCache {
  return createCache<MerchantRecord | undefined>(clock, { ttlMs, maxEntries: MAX_ENTRIES });
}
