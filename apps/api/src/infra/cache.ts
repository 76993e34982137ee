/**
 * The API's one TTL cache (lru-cache underneath), timed by the injected clock so tests and drills control it.
 * Invariants every user relies on:
 * - concurrent misses for one key share one load (single flight);
 * - a value serves until `ttlMs` after its load started; a clock that jumps backwards makes it stale, never
 *   immortal;
 * - a failed load is not kept: the next call tries again;
 * - a load that started before `invalidate` or `clear` is never stored (its callers still get its result), so a
 *   slow read cannot put an old value back after a write;
 * - `undefined` is never stored (an unknown merchant is looked up again next time);
 * - at most `maxEntries` keys; the least recently used goes first (keys may come from user input).
 */
import { LRUCache } from "lru-cache";
import type { Clock } from "./clock";

export interface Cache<V> {
  /** The value of `key`, from the cache or from `load`. */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Forgets `key` (and keeps any load in flight from storing it). */
  invalidate(key: string): void;
  /** Forgets everything. */
  clear(): void;
  /** How many loads ran (tests and benches read it). */
  readonly loads: number;
}

export interface CacheOptions {
  ttlMs: number;
  maxEntries: number;
}

interface Stored<V> {
  value: V;
  at: number;
}

export function createCache<V>(clock: Clock, options: CacheOptions): Cache<V> {
  const now = () => clock.now().getTime();
  const store = new LRUCache<string, Stored<V>>({
    max: options.maxEntries,
    ttl: Math.max(1, options.ttlMs),
    // Read the injected clock on every check: a fake clock moves in jumps, not in real milliseconds.
    ttlResolution: 0,
    perf: { now },
  });
  const loading = new Map<string, Promise<V>>();
  let generation = 0;
  let loads = 0;
  return {
    get(key, load) {
      const stored = store.get(key);
      const age = stored ? now() - stored.at : -1;
      if (stored && age >= 0 && age < options.ttlMs) return Promise.resolve(stored.value);
      const inFlight = loading.get(key);
      if (inFlight) return inFlight;
      const started = generation;
      const at = now();
      loads++;
      const pending = load()
        .then((value) => {
          const left = options.ttlMs - (now() - at);
          if (started === generation && value !== undefined && left > 0)
            store.set(key, { value, at }, { ttl: left });
          return value;
        })
        .finally(() => {
          if (loading.get(key) === pending) loading.delete(key);
        });
      loading.set(key, pending);
      return pending;
    },
    invalidate(key) {
      generation++;
      store.delete(key);
      loading.delete(key);
    },
    clear() {
      generation++;
      store.clear();
      loading.clear();
    },
    get loads() {
      return loads;
    },
  };
}

/** One cached value (a cache of a single key), e.g. a read that reaches every chain. */
export interface CachedValue<V> {
  get(): Promise<V>;
  invalidate(): void;
}

export function createCachedValue<V>(clock: Clock, ttlMs: number, load: () => Promise<V>): CachedValue<V> {
  const cache = createCache<V>(clock, { ttlMs, maxEntries: 1 });
  return { get: () => cache.get("value", load), invalidate: () => cache.clear() };
}
