/**
 * The merchant dashboard's time window (docs/merchants.md "Dashboard"): the last `days` UTC days,
 * today included, so `days=1` is today since midnight UTC. Every aggregate is bounded by it.
 */
import type { Database } from "@tollgate/db";
import { type AnyColumn, and, eq, gte, lt } from "drizzle-orm";
import type { ChainRegistry } from "../chains";

export const DAY_MS = 86_400_000;
export const DASHBOARD_MAX_DAYS = 365;
export const DASHBOARD_DEFAULT_DAYS = 30;

export interface DashboardWindow {
  /** First instant included (midnight UTC). */
  from: Date;
  /** Now: the end of the window. */
  to: Date;
  days: number;
}

export function dashboardWindow(now: Date, days: number): DashboardWindow {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return { from: new Date(today - (days - 1) * DAY_MS), to: now, days };
}

/** What every dashboard aggregate reads. */
export interface DashboardDeps {
  db: { db: Database };
  chains: ChainRegistry;
}

/** The rows of `merchantId` whose `at` falls in the window: the bound of every dashboard aggregate. */
export function merchantInWindow(
  columns: { merchantId: AnyColumn; at: AnyColumn },
  merchantId: string,
  window: DashboardWindow,
) {
  return and(eq(columns.merchantId, merchantId), gte(columns.at, window.from), lt(columns.at, window.to));
}
