/**
 * Fills the overview's pause and drift hooks from the controls module, so the overview shows the pause
 * state this process enforces and how the recorded configuration differs from the manifest and the contracts.
 */
import type { DatabaseHandle } from "@tollgate/db";
import { createCachedValue } from "../../infra/cache";
import type { Clock } from "../../infra/clock";
import type { ChainRegistry } from "../chains";
import { configDrift, listPauses } from "../controls";
import type { OverviewConfigDrift, OverviewExtensions } from "./overview-service";

const text = (value: string | number | boolean | null): string | null =>
  value === null ? null : String(value);

/** How long the overview reuses one config-drift read (each read calls every chain's RPC). */
export const CONFIG_DRIFT_CACHE_MS = 30_000;

export function overviewProviders(
  db: DatabaseHandle,
  chains: ChainRegistry,
  clock: Clock,
  driftCacheMs = CONFIG_DRIFT_CACHE_MS,
): OverviewExtensions & { invalidateConfigDrift(): void } {
  const drift = createCachedValue(clock, driftCacheMs, () => readConfigDrift(db, chains));
  return {
    invalidateConfigDrift: () => drift.invalidate(),
    async pauseState() {
      const pauses = await listPauses(db.db);
      return {
        paused: pauses.length > 0,
        scopes: pauses.map((pause) => ({
          scope: pause.scope,
          reason: pause.reason,
          since: pause.paused_at,
          by: pause.paused_by,
        })),
      };
    },
    configDrift: () => drift.get(),
  };
}

async function readConfigDrift(db: DatabaseHandle, chains: ChainRegistry): Promise<OverviewConfigDrift[]> {
  const drift: OverviewConfigDrift[] = [];
  for (const network of await configDrift({ db, chains })) {
    if (!network.chain.reachable) {
      drift.push({
        network: network.network,
        field: "rpc",
        recorded: "reachable",
        on_chain: network.chain.error ?? null,
      });
    }
    for (const item of network.drift) {
      drift.push({
        network: network.network,
        field: item.field,
        recorded: text(item.expected),
        on_chain: text(item.actual),
      });
    }
  }
  return drift;
}
