/**
 * Fee income for operators (`/api/dashboard/fees`): the treasury and ip-creator legs of confirmed and
 * final settlements, summed per network, token, splitter version and UTC day, from the indexer's `settlements`.
 * Splitter payments only: a batch-settlement claim pays the merchant whole and carries no fee (decision 0093).
 *
 * Invariants: sums are exact (numeric in the database, decimal strings of base units on the wire, never floats);
 * seen and orphaned settlements are not income; the range is bounded (at most 366 days).
 */
import { type Database, settlements } from "@tollgate/db";
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { assetSymbol, type ChainRegistry, SETTLEMENT_DAY } from "../chains";

export interface FeesQuery {
  from: Date;
  to: Date;
  network?: string | undefined;
}

export async function feeIncome(deps: { db: { db: Database }; chains: ChainRegistry }, query: FeesQuery) {
  const rows = await deps.db.db
    .select({
      day: SETTLEMENT_DAY,
      network: settlements.network,
      token: settlements.token,
      splitterVersion: settlements.splitterVersion,
      settlements: sql<string>`count(*)`,
      treasury: sql<string>`sum(${settlements.treasuryAmount})::text`,
      ipCreator: sql<string>`sum(${settlements.ipCreatorAmount})::text`,
      total: sql<string>`sum(${settlements.totalAmount})::text`,
    })
    .from(settlements)
    .where(
      and(
        gte(settlements.seenAt, query.from),
        lt(settlements.seenAt, query.to),
        inArray(settlements.state, ["confirmed", "final"]),
        eq(settlements.scheme, "splitter"),
        query.network ? sql`${settlements.network} = ${query.network}` : undefined,
      ),
    )
    .groupBy(SETTLEMENT_DAY, settlements.network, settlements.token, settlements.splitterVersion)
    .orderBy(SETTLEMENT_DAY, settlements.network, settlements.token, settlements.splitterVersion);
  return rows.map((row) => ({
    day: row.day,
    network: row.network,
    token: row.token,
    asset: assetSymbol(deps.chains, row.network, row.token),
    splitter_version: row.splitterVersion,
    settlements: Number(row.settlements),
    treasury_amount: row.treasury,
    ip_creator_amount: row.ipCreator,
    total_amount: row.total,
  }));
}
