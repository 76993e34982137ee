/**
 * One evaluation of every route, shared by the public registry surfaces (issue 13). Cached per process for
 * `REGISTRY_CACHE_SECONDS` with single flight, and keyed by the operator pause state, so a pause or unpause shows
 * as soon as this process's pause gate sees it (at most its poll interval) instead of a cache lifetime later.
 */
import { createTtlCache, type TtlCache } from "../marketplace/feed-cache";
import { type AvailabilityDeps, evaluateAvailability, type NetworkAvailability } from "./availability";
import { REGISTRY_CACHE_SECONDS } from "./paths";

export interface RegistrySnapshot {
  at: Date;
  availability: NetworkAvailability[];
}

const caches = new WeakMap<AvailabilityDeps, TtlCache<RegistrySnapshot>>();

export async function registrySnapshot(deps: AvailabilityDeps): Promise<RegistrySnapshot> {
  let cache = caches.get(deps);
  if (!cache) {
    cache = createTtlCache<RegistrySnapshot>(deps.clock, {
      ttlMs: REGISTRY_CACHE_SECONDS * 1000,
      maxEntries: 8,
    });
    caches.set(deps, cache);
  }
  const paused = (await deps.pause.current()).map((pause) => pause.scope).sort();
  return cache.get(JSON.stringify(paused), async () => ({
    at: deps.clock.now(),
    availability: await evaluateAvailability(deps),
  }));
}
