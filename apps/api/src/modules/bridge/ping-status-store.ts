/**
 * The pinger's results on the provider rows (docs/decisions/0036-bridge-providers-in-the-database.md). Each result is
 * written to its row (`ping_*` columns) and kept in memory for the next round; `hydrate` reads the rows back after a
 * restart so the last live time and the count of failures in a row carry on instead of starting over.
 * Invariant: a result for an id with no row (deleted meanwhile) writes nothing.
 */
import { bridgeProviders, type Database } from "@tollgate/db";
import { eq, isNotNull } from "drizzle-orm";
import type { ProviderStatus, ProviderStatusStore } from "./pinger";

export function createDbStatusStore(db: Database): ProviderStatusStore {
  const statuses = new Map<string, ProviderStatus>();
  return {
    async set(status) {
      statuses.set(status.provider, status);
      await db
        .update(bridgeProviders)
        .set({
          pingCheckedAt: status.checkedAt,
          pingState: status.state,
          pingReason: status.reason ?? null,
          pingLatencyMs: status.latencyMs,
          pingLastLiveAt: status.lastLiveAt ?? null,
          pingConsecutiveFailures: status.consecutiveFailures,
        })
        .where(eq(bridgeProviders.id, status.provider));
    },
    get: (provider) => statuses.get(provider),
    all: () => [...statuses.values()],
    async hydrate() {
      const rows = await db.select().from(bridgeProviders).where(isNotNull(bridgeProviders.pingCheckedAt));
      for (const row of rows) {
        if (statuses.has(row.id) || !row.pingCheckedAt || !row.pingState) continue;
        statuses.set(row.id, {
          provider: row.id,
          url: `${(row.pingUrl ?? "").replace(/\/$/, "")}/.well-known/x402.json`,
          state: row.pingState === "live" ? "live" : "down",
          ...(row.pingReason ? { reason: row.pingReason } : {}),
          checkedAt: row.pingCheckedAt,
          ...(row.pingLastLiveAt ? { lastLiveAt: row.pingLastLiveAt } : {}),
          latencyMs: row.pingLatencyMs ?? 0,
          consecutiveFailures: row.pingConsecutiveFailures,
        });
      }
    },
  };
}
