/**
 * One value kept for `ttlMs` by the injected clock, loaded by at most one call at a time (callers during a load
 * share it). A failed load is not kept: the next call tries again. Used where an operator read would otherwise
 * reach every chain on each request (issue 10: the overview's config drift).
 */
import type { Clock } from "./clock";

export interface TtlCache<T> {
  get(): Promise<T>;
  /** Forgets the value, e.g. after the operator changed what it is computed from. */
  invalidate(): void;
}

export function ttlCache<T>(load: () => Promise<T>, ttlMs: number, clock: Clock): TtlCache<T> {
  let value: { at: number; data: T } | undefined;
  let inFlight: Promise<T> | undefined;
  let generation = 0;
  return {
    get() {
      const now = clock.now().getTime();
      if (value && now - value.at < ttlMs && now >= value.at) return Promise.resolve(value.data);
      if (inFlight) return inFlight;
      const started = generation;
      const loading: Promise<T> = load()
        .then((data) => {
          if (started === generation) value = { at: now, data };
          return data;
        })
        .finally(() => {
          if (inFlight === loading) inFlight = undefined;
        });
      inFlight = loading;
      return loading;
    },
    invalidate() {
      generation++;
      value = undefined;
      inFlight = undefined;
    },
  };
}
