/**
 * A small TTL cache with single flight (issue 11; SPEC §4.2 "cached briefly"): concurrent requests for one key
 * share one load, a finished value serves until `ttlMs` after it was loaded (by the injected clock), a failed
 * load is not kept. At most `maxEntries` keys (keys come from user input): the oldest goes first.
 */
import type { Clock } from "../../infra/clock";

interface Entry<T> {
  expiresAt: number;
  value: Promise<T>;
}

export interface TtlCache<T> {
  get(key: string, load: () => Promise<T>): Promise<T>;
  /** How many loads ran: tests and the bench read it. */
  readonly loads: number;
  clear(): void;
}

export function createTtlCache<T>(clock: Clock, options: { ttlMs: number; maxEntries: number }): TtlCache<T> {
  const entries = new Map<string, Entry<T>>();
  let loads = 0;
  return {
    get(key, load) {
      const now = clock.now().getTime();
      const found = entries.get(key);
      if (found && found.expiresAt > now) return found.value;
      if (found) entries.delete(key);
      while (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
      loads++;
      const value = load();
      const entry: Entry<T> = { expiresAt: now + options.ttlMs, value };
      entries.set(key, entry);
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return value;
    },
    get loads() {
      return loads;
    },
    clear() {
      entries.clear();
    },
  };
}
