/**
 * Live network figures for the identity-gated GET /api/live-stats: per network and token, the
 * settlements, their volume (atomic units, decimal strings) and the distinct paying agents over the last hour and
 * the last day. Orphaned settlements (reorged away) are left out.
 */
import { type Database, perToken, settlements } from "@tollgate/db";
import { and, count, countDistinct, gte, ne, sql } from "drizzle-orm";
import type { Clock } from "../../infra/clock";

export interface LiveStatsDeps {
  db: { db: Database };
  clock: Clock;
}

export interface LiveWindowRow {
  network: string;
  chain_id: number;
  token: string;
  settlements: number;
  volume: string;
  active_agents: number;
}

export interface LiveStats {
  generated_at: string;
  windows: { last_hour: LiveWindowRow[]; last_day: LiveWindowRow[] };
}

async function windowRows(db: Database, since: Date): Promise<LiveWindowRow[]> {
  const rows = await db
    .select({
      ...perToken.key,
      n: count(),
      volume: sql<string>`coalesce(sum(${settlements.totalAmount}), 0)::text`,
      agents: countDistinct(settlements.payer),
    })
    .from(settlements)
    .where(and(gte(settlements.seenAt, since), ne(settlements.state, "orphaned")))
    .groupBy(...perToken.group)
    .orderBy(...perToken.order);
  return rows.map((row) => ({
    ...perToken.view(row),
    settlements: Number(row.n),
    volume: row.volume,
    active_agents: Number(row.agents),
  }));
}

export async function liveStats(deps: LiveStatsDeps): Promise<LiveStats> {
  const now = deps.clock.now();
  const [lastHour, lastDay] = await Promise.all([
    windowRows(deps.db.db, new Date(now.getTime() - 3_600_000)),
    windowRows(deps.db.db, new Date(now.getTime() - 86_400_000)),
  ]);
  return { generated_at: now.toISOString(), windows: { last_hour: lastHour, last_day: lastDay } };
}
