/**
 * Fills the overview's pause and drift hooks (issue 10) from the operator services, so the overview shows the pause
 * state this process enforces and how the recorded configuration differs from the manifest and the contracts.
 */
import type { DatabaseHandle } from "@tollgate/db";
import type { ChainRegistry } from "../chains";
import { configDrift } from "../operator/network-config-service";
import { listPauses } from "../operator/pause-service";
import type { OverviewConfigDrift, OverviewExtensions } from "./overview";

const text = (value: string | number | boolean | null): string | null =>
  value === null ? null : String(value);

export function overviewProviders(db: DatabaseHandle, chains: ChainRegistry): OverviewExtensions {
  return {
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
    async configDrift() {
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
    },
  };
}
