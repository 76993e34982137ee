/**
 * One evaluation of every route, shared by the public registry surfaces (SPEC §2.8; docs/registry.md). Kept for
 * `REGISTRY_CACHE_SECONDS` through the one cache, and keyed by the operator pause state, so a pause or unpause shows
 * as soon as this process's pause gate sees it (at most its poll interval) instead of a cache lifetime later. The
 * networks the indexer halted are read with it (a halt shows within one cache lifetime).
 */
import type { Database } from "@tollgate/db";
import { createCache } from "../../infra/cache";
import { type HaltView, listOpenHalts } from "../controls";
import { type AvailabilityDeps, evaluateAvailability, type NetworkAvailability } from "./availability";
import { REGISTRY_CACHE_SECONDS } from "./paths";

export interface RegistrySnapshot {
  at: Date;
  availability: NetworkAvailability[];
  /** Open indexer halts, by network (docs/decisions/0059-network-halts-resume-and-operations.md). */
  halts: ReadonlyMap<string, HaltView>;
}

/** The snapshot reader the public module is built with (one cache per app). */
export type RegistrySnapshots = () => Promise<RegistrySnapshot>;

export function createRegistrySnapshots(
  deps: AvailabilityDeps & { db: { db: Database } },
): RegistrySnapshots {
  const cache = createCache<RegistrySnapshot>(deps.clock, {
    ttlMs: REGISTRY_CACHE_SECONDS * 1000,
    maxEntries: 8,
  });
  return async () => {
    const paused = (await deps.pause.current()).map((pause) => pause.scope).sort();
    return cache.get(JSON.stringify(paused), async () => ({
      at: deps.clock.now(),
      availability: await evaluateAvailability(deps),
      halts: new Map((await listOpenHalts(deps.db.db)).map((halt) => [halt.network, halt])),
    }));
  };
}
