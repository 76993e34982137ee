/**
 * The merchant read of the quote path (issue 15), cached per process. Invariants:
 * - every merchant write in this process (`updateMerchant`, `rotateMerchantSecret`, `confirmPayoutChange`)
 *   calls `invalidate(id)` after its transaction commits, so the writing process quotes the new terms at once;
 * - other processes see a change within `ttlMs` (PAUSE_POLL_MS, the same bound as the operator pause);
 * - a read that started before any invalidation is never stored (one generation counter), so a slow read cannot
 *   put the old row back after the write;
 * - misses (unknown merchants) are not cached: a new merchant is quotable at once everywhere;
 * - concurrent misses for one id share one read.
 */
import type { Clock } from "../../infra/clock";
import type { MerchantRecord } from "./merchant-service";

export interface MerchantCache {
  /** The merchant `id` from the cache, else from `load` (stored unless invalidated meanwhile). */
  get(id: string, load: () => Promise<MerchantRecord | undefined>): Promise<MerchantRecord | undefined>;
  /** Forget `id`: the next `get` reads the database. */
  invalidate(id: string): void;
}

/** Upper bound on cached merchants; past it the oldest entry goes (Map keeps insertion order). */
const MAX_ENTRIES = 10_000;

export function createMerchantCache(clock: Clock, ttlMs: number): MerchantCache {
  const entries = new Map<string, { at: number; merchant: MerchantRecord }>();
  const loading = new Map<string, Promise<MerchantRecord | undefined>>();
  let generation = 0;

  return {
    get(id, load) {
      const now = clock.now().getTime();
      const hit = entries.get(id);
      if (hit && now - hit.at < ttlMs && now >= hit.at) return Promise.resolve(hit.merchant);
      const pending = loading.get(id);
      if (pending) return pending;
      const started = generation;
      const read = load()
        .then((merchant) => {
          if (merchant && generation === started && ttlMs > 0) {
            entries.delete(id);
            entries.set(id, { at: now, merchant });
            if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
          }
          return merchant;
        })
        .finally(() => {
          if (loading.get(id) === read) loading.delete(id);
        });
      loading.set(id, read);
      return read;
    },
    invalidate(id) {
      entries.delete(id);
      loading.delete(id);
      generation++;
    },
  };
}
