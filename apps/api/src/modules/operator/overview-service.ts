/**
 * GET /admin/api/overview: one read of the whole service for operators. Money per network and token comes
 * from the daily rollup `settlement_daily_rollups` (orphaned rows excluded; kept by a trigger in the same transaction
 * as each settlement change); counts from receipts, merchants, settlements by state, webhooks and indexer cursors.
 * Pause state and config drift belong to other work (pause / initialize-config): they reach the overview
 * through `OverviewExtensions`, and are `null` until those providers are wired in.
 */
import {
  indexerCursors,
  merchants,
  receipts,
  settlementDailyRollups,
  settlements,
  webhookDeliveries,
  webhookEndpoints,
} from "@tollgate/db";
import { count, countDistinct, sql } from "drizzle-orm";
import { assetResolver } from "../chains";
import { listOpenHalts } from "../controls";
import { deliveryStatusCounts } from "../merchants";
import type { AdminReadDeps } from "./read-common";

/** Pause state as the pause work will report it: the scopes paused now. */
export interface OverviewPauseState {
  paused: boolean;
  scopes: { scope: string; reason: string; since: string; by: string | null }[];
}

/** One difference between the recorded configuration and what a contract reports. */
export interface OverviewConfigDrift {
  network: string;
  field: string;
  recorded: string | null;
  on_chain: string | null;
}

/** Hooks the pause and initialize-config work fill in; absent providers answer `null` in the overview. */
export interface OverviewExtensions {
  pauseState?: () => Promise<OverviewPauseState>;
  /** Cached briefly by the provider (overview-providers.ts); `invalidateConfigDrift` drops the cached read. */
  configDrift?: () => Promise<OverviewConfigDrift[]>;
  invalidateConfigDrift?: () => void;
}

const sum = (column: unknown) => sql<string>`coalesce(sum(${column}), 0)::text`;

export async function readOverview(deps: AdminReadDeps, extensions: OverviewExtensions = {}) {
  const db = deps.db.db;
  const assetOf = assetResolver(deps.chains);
  const [
    [merchantCount],
    [receiptCount],
    [agentCount],
    byState,
    volumes,
    deliveries,
    endpoints,
    cursors,
    pause,
    drift,
    halts,
  ] = await Promise.all([
    db.select({ n: count() }).from(merchants),
    db.select({ n: count() }).from(receipts),
    db.select({ n: countDistinct(settlements.payer) }).from(settlements),
    db.select({ state: settlements.state, n: count() }).from(settlements).groupBy(settlements.state),
    // The daily rollup (kept by a trigger in the settlement's own transaction), not the settlements table.
    db
      .select({
        network: settlementDailyRollups.network,
        chainId: settlementDailyRollups.chainId,
        token: settlementDailyRollups.token,
        settlements: sql<number>`coalesce(sum(${settlementDailyRollups.settlements}), 0)::int`,
        total: sum(settlementDailyRollups.totalAmount),
        merchant: sum(settlementDailyRollups.merchantAmount),
        treasury: sum(settlementDailyRollups.treasuryAmount),
        ipCreator: sum(settlementDailyRollups.ipCreatorAmount),
      })
      .from(settlementDailyRollups)
      .groupBy(settlementDailyRollups.network, settlementDailyRollups.chainId, settlementDailyRollups.token)
      .having(sql`sum(${settlementDailyRollups.settlements}) > 0`),
    db
      .select({ status: webhookDeliveries.status, n: count() })
      .from(webhookDeliveries)
      .groupBy(webhookDeliveries.status),
    db
      .select({ status: webhookEndpoints.status, n: count() })
      .from(webhookEndpoints)
      .groupBy(webhookEndpoints.status),
    db.select().from(indexerCursors),
    extensions.pauseState ? extensions.pauseState() : Promise.resolve(null),
    extensions.configDrift ? extensions.configDrift() : Promise.resolve(null),
    listOpenHalts(db),
  ]);
  const haltOf = new Map(halts.map((halt) => [halt.chain_id, halt]));
  const stateCounts = new Map(byState.map((row) => [row.state, row.n]));
  const deliveryCounts = new Map<string, number>(deliveries.map((row) => [row.status, row.n]));
  const endpointCounts = new Map<string, number>(endpoints.map((row) => [row.status, row.n]));
  const sortedVolumes = [...volumes].sort(
    (a, b) => a.network.localeCompare(b.network) || a.token.localeCompare(b.token),
  );
  return {
    generated_at: deps.clock.now().toISOString(),
    counts: {
      merchants: merchantCount?.n ?? 0,
      agents: agentCount?.n ?? 0,
      receipts: receiptCount?.n ?? 0,
      settlements: {
        seen: stateCounts.get("seen") ?? 0,
        confirmed: stateCounts.get("confirmed") ?? 0,
        final: stateCounts.get("final") ?? 0,
        orphaned: stateCounts.get("orphaned") ?? 0,
      },
    },
    volume: sortedVolumes.map((row) => ({
      network: row.network,
      chain_id: row.chainId,
      token: row.token,
      asset: assetOf(row.chainId, row.token),
      settlements: row.settlements,
      total_amount: row.total,
      merchant_amount: row.merchant,
      treasury_amount: row.treasury,
      ip_creator_amount: row.ipCreator,
    })),
    treasury_income: sortedVolumes.map((row) => ({
      network: row.network,
      token: row.token,
      asset: assetOf(row.chainId, row.token),
      amount: row.treasury,
    })),
    webhooks: {
      endpoints: { active: endpointCounts.get("active") ?? 0, disabled: endpointCounts.get("disabled") ?? 0 },
      deliveries: deliveryStatusCounts(deliveryCounts),
    },
    indexer: cursors
      .sort((a, b) => a.chainId - b.chainId)
      .map((cursor) => ({
        network: cursor.network,
        chain_id: cursor.chainId,
        indexed_block: cursor.blockNumber.toString(),
        head_block: cursor.headNumber?.toString() ?? null,
        lag_blocks:
          cursor.headNumber === null
            ? null
            : (cursor.headNumber > cursor.blockNumber
                ? cursor.headNumber - cursor.blockNumber
                : 0n
              ).toString(),
        // The open network_halts row; the cursor column is the older, in-place note.
        halted_reason: haltOf.get(cursor.chainId)?.reason ?? cursor.haltedReason,
        halted_at: haltOf.get(cursor.chainId)?.halted_at ?? null,
        updated_at: cursor.updatedAt.toISOString(),
      })),
    pause,
    config_drift: drift,
    halted_networks: halts,
  };
}

export type OverviewView = Awaited<ReturnType<typeof readOverview>>;
