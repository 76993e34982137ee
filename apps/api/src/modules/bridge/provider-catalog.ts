/**
 * The bridge router's providers (docs/bridge.md "Providers in the database"). The router reads them
 * synchronously from the last load; each request first calls `refresh()`, which reloads when the list is older than
 * `ttlMs` or was invalidated. Invariants (as the merchant cache, ../merchants/merchant-cache.ts):
 * - an operator write in this process calls `invalidate()` after its transaction commits: the next request here
 *   sees it;
 * - other processes see a change within `ttlMs` (PAUSE_POLL_MS);
 * - a load that started before an invalidation never becomes current (generation counter), so a slow read cannot
 *   bring back the list from before the write;
 * - concurrent refreshes share one load; a failed reload keeps the last good list (the bridge keeps selling what
 *   it sold) and is retried by the next request; with no list at all the request answers 503.
 */
import { AppError } from "@tollgate/shared";
import type { Clock } from "../../infra/clock";
import type { ProviderConfig } from "./config";

export interface ProviderCatalog {
  /** The providers served (enabled ones), as last loaded. */
  list(): readonly ProviderConfig[];
  get(id: string): ProviderConfig | undefined;
  /** Reloads when stale or invalidated; resolves at once otherwise. */
  refresh(): Promise<void>;
  /** The next `refresh()` reloads. */
  invalidate(): void;
}

function indexed(providers: readonly ProviderConfig[]): Map<string, ProviderConfig> {
  return new Map(providers.map((provider) => [provider.id, provider]));
}

/** Providers fixed at start-up (the stand-alone bridge, single-provider mode, tests without a database). */
export function staticCatalog(providers: readonly ProviderConfig[]): ProviderCatalog {
  const byId = indexed(providers);
  return {
    list: () => providers,
    get: (id) => byId.get(id),
    refresh: () => Promise.resolve(),
    invalidate: () => undefined,
  };
}

export function createProviderCatalog(options: {
  load: () => Promise<readonly ProviderConfig[]>;
  clock: Clock;
  ttlMs: number;
  onError?: (error: unknown) => void;
}): ProviderCatalog {
  let current: { at: number; generation: number; providers: readonly ProviderConfig[] } | undefined;
  let byId = new Map<string, ProviderConfig>();
  let generation = 0;
  let loading: Promise<void> | undefined;

  const fresh = (now: number) =>
    current !== undefined &&
    current.generation === generation &&
    now >= current.at &&
    now - current.at < options.ttlMs;

  function reload(now: number): Promise<void> {
    const started = generation;
    const read = options
      .load()
      .then((providers) => {
        // Only a read that started after the latest invalidation may become current.
        if (started !== generation && current !== undefined) return;
        current = { at: now, generation: started, providers };
        byId = indexed(providers);
      })
      .finally(() => {
        if (loading === read) loading = undefined;
      });
    loading = read;
    return read;
  }

  return {
    list: () => current?.providers ?? [],
    get: (id) => byId.get(id),
    async refresh() {
      const now = options.clock.now().getTime();
      if (fresh(now)) return;
      try {
        await (loading ?? reload(now));
        // An invalidation while a load was in flight: read again so this request sees the write.
        if (current && current.generation !== generation) await (loading ?? reload(now));
      } catch (error) {
        options.onError?.(error);
        if (!current)
          throw new AppError("service_unavailable", "bridge providers could not be read", {
            cause: error,
            headers: { "Retry-After": "5" },
          });
      }
    },
    invalidate() {
      generation++;
    },
  };
}
