/**
 * Operator telemetry (`/api/dashboard/telemetry`): request counts by status class and latency
 * percentiles per route and per merchant from this process's {@link Telemetry}, and settlement latency (a Payment
 * log first seen → confirmed) per network from the indexer's `settlements`, over the same window.
 * With Redis, the figures are the cluster's (every process's flushed minutes, this one's flushed first); when Redis
 * cannot be read, this process's own, said so by `scope: "process"`.
 */
import { type Database, settlements } from "@tollgate/db";
import { and, gte, isNotNull, sql } from "drizzle-orm";
import type { Logger } from "../../infra/logger";
import type { Telemetry } from "./telemetry";
import type { TelemetryShare } from "./telemetry-redis";

export interface TelemetryQuery {
  windowMinutes: number;
  merchantId?: string | undefined;
  limit: number;
}

export async function readTelemetry(
  deps: {
    db: { db: Database };
    telemetry: Telemetry;
    telemetryShare: TelemetryShare | undefined;
    log: Logger;
  },
  query: TelemetryQuery,
) {
  const { scope, window } = await readWindow(deps, query.windowMinutes);
  const byRequests = <T extends { requests: number }>(a: T & { key: string }, b: T & { key: string }) =>
    b.requests - a.requests || a.key.localeCompare(b.key);
  const routes = [...window.routes]
    .map(([key, summary]) => ({ key, ...summary }))
    .sort(byRequests)
    .map(({ key, ...summary }) => {
      const [method, ...rest] = key.split(" ");
      return { method: method ?? "", route: rest.join(" "), ...summary };
    });
  const merchants = [...window.merchants]
    .filter(([key]) => query.merchantId === undefined || key === query.merchantId)
    .map(([key, summary]) => ({ key, ...summary }))
    .sort(byRequests)
    .slice(0, query.limit)
    .map(({ key, ...summary }) => ({ merchant_id: key, ...summary }));
  const seconds = sql`extract(epoch from (${settlements.confirmedAt} - ${settlements.seenAt}))`;
  const latency = await deps.db.db
    .select({
      network: settlements.network,
      n: sql<string>`count(*)`,
      p50: sql<string | null>`percentile_cont(0.5) within group (order by ${seconds})`,
      p90: sql<string | null>`percentile_cont(0.9) within group (order by ${seconds})`,
      p99: sql<string | null>`percentile_cont(0.99) within group (order by ${seconds})`,
    })
    .from(settlements)
    .where(and(isNotNull(settlements.confirmedAt), gte(settlements.confirmedAt, window.from)))
    .groupBy(settlements.network)
    .orderBy(settlements.network);
  const num = (value: string | null) => (value === null ? null : Math.round(Number(value) * 1000) / 1000);
  return {
    scope,
    process_id: deps.telemetry.instanceId,
    counted_since: deps.telemetry.startedAt.toISOString(),
    window_minutes: Math.min(query.windowMinutes, deps.telemetry.retentionMinutes),
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    routes,
    merchants,
    settlement_latency: latency.map((row) => ({
      network: row.network,
      settlements: Number(row.n),
      seconds: { p50: num(row.p50), p90: num(row.p90), p99: num(row.p99) },
    })),
  };
}

async function readWindow(
  deps: { telemetry: Telemetry; telemetryShare: TelemetryShare | undefined; log: Logger },
  windowMinutes: number,
) {
  if (deps.telemetryShare) {
    try {
      await deps.telemetryShare.flush();
      return { scope: "cluster" as const, window: await deps.telemetryShare.read(windowMinutes) };
    } catch (error) {
      deps.log.warn({ err: error }, "telemetry: redis unreadable; answering with this process's figures");
    }
  }
  return { scope: "process" as const, window: deps.telemetry.read(windowMinutes) };
}
