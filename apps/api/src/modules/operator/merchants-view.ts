/**
 * Operator views of merchants: a searchable, keyset-paginated list and a detail page with tiers, the
 * gateway route, recent settlements and receipts and webhook health. Secrets never leave: the list and the
 * detail carry no secret hash, no webhook secret and no gateway origin secret.
 */
import {
  gatewayRoutes,
  merchants,
  merchantTiers,
  receipts,
  settlements,
  webhookDeliveries,
  webhookEndpoints,
} from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { and, asc, count, desc, eq, gt, like, lt, or, type SQL, sql } from "drizzle-orm";
import { DIGITS, decodeCursor, EVM_ADDRESS, encodeCursor, type ListSort } from "../../http/list-query";
import { settlementViewer } from "../chains";
import { deliveryStatusCounts, suspensionView, webhookEndpointView } from "../merchants";
import type { AdminReadDeps } from "./read-common";

export interface MerchantListQuery {
  /** An id (`mrch_...`), a payout address, or the start of a name (case-insensitive). */
  q?: string | undefined;
  /** created_at either way (default newest first); the id breaks ties (decision 0072). */
  sort?: ListSort<"created_at"> | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** `%`, `_` and `\` are literal in a search, never wildcards. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function merchantSummary(row: typeof merchants.$inferSelect) {
  return {
    id: row.id,
    name: row.name,
    pay_to: row.payTo,
    network_mode: row.networkMode,
    settlement_chain: row.settlementChain,
    settlement_version: row.settlementVersion,
    webhook_url: row.webhookUrl,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    suspension: suspensionView(row),
  };
}

/** The search condition for `q`: exact id, exact payout address, or a name prefix (all index-backed). */
export function merchantMatch(q: string): SQL {
  if (/^mrch_/.test(q)) return eq(merchants.id, q);
  if (EVM_ADDRESS.test(q)) return sql`lower(${merchants.payTo} ->> 'evm') = ${q.toLowerCase()}`;
  return like(sql`lower(${merchants.name})`, likePrefix(q.toLowerCase()));
}

/** One page in created_at order (newest first unless `sort=created_at`) and `total`, the exact count of matches. */
export async function listMerchants(deps: AdminReadDeps, query: MerchantListQuery) {
  const matched = query.q ? merchantMatch(query.q) : undefined;
  const conditions: SQL[] = matched ? [matched] : [];
  const ascending = query.sort?.direction === "asc";
  if (query.cursor !== undefined) {
    const [millis, id] = decodeCursor(query.cursor, 2, (part, index) =>
      index === 0 ? DIGITS.test(part) : /^mrch_[1-9A-HJ-NP-Za-km-z]{1,64}$/.test(part),
    );
    const at = new Date(Number(millis));
    const beyond = ascending ? gt : lt;
    const after = or(
      beyond(merchants.createdAt, at),
      and(eq(merchants.createdAt, at), beyond(merchants.id, id!)),
    );
    if (after) conditions.push(after);
  }
  const direction = ascending ? asc : desc;
  const [rows, [counted]] = await Promise.all([
    deps.db.db
      .select()
      .from(merchants)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(direction(merchants.createdAt), direction(merchants.id))
      .limit(query.limit + 1),
    deps.db.db.select({ total: count() }).from(merchants).where(matched),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    merchants: page.map(merchantSummary),
    next_cursor:
      rows.length > query.limit && last ? encodeCursor([String(last.createdAt.getTime()), last.id]) : null,
    total: counted?.total ?? 0,
  };
}

const RECENT = 10;

export async function getMerchantDetail(deps: AdminReadDeps, id: string) {
  const db = deps.db.db;
  const [merchant] = await db.select().from(merchants).where(eq(merchants.id, id));
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${id}`);
  const [tiers, [route], recentSettlements, recentReceipts, [endpoint], deliveries, [lastFailure]] =
    await Promise.all([
      db
        .select()
        .from(merchantTiers)
        .where(eq(merchantTiers.merchantId, id))
        .orderBy(asc(merchantTiers.tier)),
      db.select().from(gatewayRoutes).where(eq(gatewayRoutes.merchantId, id)),
      db
        .select()
        .from(settlements)
        .where(eq(settlements.merchantId, id))
        .orderBy(desc(settlements.id))
        .limit(RECENT),
      db
        .select()
        .from(receipts)
        .where(eq(receipts.merchantId, id))
        .orderBy(desc(receipts.issuedAt), desc(receipts.id))
        .limit(RECENT),
      db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, id)),
      db
        .select({ status: webhookDeliveries.status, n: count() })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.merchantId, id))
        .groupBy(webhookDeliveries.status),
      db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.merchantId, id),
            or(eq(webhookDeliveries.status, "failed"), eq(webhookDeliveries.status, "dead")),
          ),
        )
        .orderBy(desc(webhookDeliveries.id))
        .limit(1),
    ]);
  const viewSettlement = settlementViewer(deps.chains);
  const counts = new Map<string, number>(deliveries.map((row) => [row.status, row.n]));
  return {
    merchant: merchantSummary(merchant),
    tiers: tiers.map((tier) => ({
      tier: tier.tier,
      unit_price_micro_usd: tier.unitPriceMicroUsd.toString(),
    })),
    gateway_route: route
      ? {
          slug: route.slug,
          upstream_url: route.upstreamUrl,
          tier: route.tier,
          updated_at: route.updatedAt.toISOString(),
        }
      : null,
    recent_settlements: recentSettlements.map(viewSettlement),
    recent_receipts: recentReceipts.map((row) => ({
      id: row.id,
      quote_id: row.quoteId,
      payer: row.payer,
      chain_id: row.chainId,
      tx_hash: row.txHash,
      quota: row.quota,
      issued_at: row.issuedAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
    })),
    webhook: {
      url: merchant.webhookUrl,
      endpoint: webhookEndpointView(endpoint),
      deliveries: deliveryStatusCounts(counts),
      last_failure: lastFailure
        ? {
            event_id: lastFailure.eventId,
            status: lastFailure.status,
            attempts: lastFailure.attempts,
            last_status: lastFailure.lastStatus,
            last_error: lastFailure.lastError,
            last_attempt_at: lastFailure.lastAttemptAt?.toISOString() ?? null,
          }
        : null,
    },
  };
}
