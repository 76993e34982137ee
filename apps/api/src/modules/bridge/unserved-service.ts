/**
 * Bridge orders paid but not served (`/api/dashboard/failed` kind `bridge_unserved`). The bridge's orders
 * and claims live in its memory/Redis store, so the bridge records here, where it releases a claim after an upstream
 * failure, the verified on-chain payment it could not serve; a later delivered replay marks the row served.
 * Invariants: one row per order (unique order id; a repeat failure bumps `attempts`); recording never changes the
 * bridge's answer (a database error is logged, not raised); an operator resolves a row once, only after the payer can
 * no longer replay the proof (`replayable_until`), in one transaction with its audit event. Ids: `fail_<order id>`.
 */
import { bridgeUnservedPayments, type Database } from "@tollgate/db";
import { AppError, ZERO_ADDRESS } from "@tollgate/shared";
import { and, asc, count, desc, eq, gt, gte, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { Logger } from "../../infra/logger";
import type { OperatorActor } from "../audit";
import { auditOperatorAction } from "../audit";
import type { ChainRegistry } from "../chains";
import { assetResolver, explorerResolver } from "../chains";

export interface UnservedPayment {
  orderId: string;
  provider: string;
  network: string;
  chainId: number;
  txHash: string;
  logIndex: number;
  payer: string;
  merchantAddress: string;
  /** Decimal string of wei (`pay_matic` pays the native coin). */
  totalAmount: string;
  /** The problem code the client got. */
  error: string;
  replayableUntil: Date;
}

/** What the bridge calls (BridgeDeps.unserved); absent for the stand-alone bridge, which has no database. */
export interface UnservedRecorder {
  failed(payment: UnservedPayment): Promise<void>;
  served(orderId: string): Promise<void>;
}

export function createUnservedRecorder(db: Database, clock: { now(): Date }, log: Logger): UnservedRecorder {
  const quietly = async (what: string, orderId: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      log.error({ err: error, order: orderId }, `could not record a bridge order as ${what}`);
    }
  };
  return {
    failed: (p) =>
      quietly("unserved", p.orderId, () => {
        const now = clock.now();
        return db
          .insert(bridgeUnservedPayments)
          .values({
            orderId: p.orderId,
            provider: p.provider,
            network: p.network,
            chainId: p.chainId,
            txHash: p.txHash.toLowerCase(),
            logIndex: p.logIndex,
            payer: p.payer.toLowerCase(),
            merchantAddress: p.merchantAddress.toLowerCase(),
            token: ZERO_ADDRESS,
            totalAmount: p.totalAmount,
            lastError: p.error,
            attempts: 1,
            firstFailedAt: now,
            lastFailedAt: now,
            replayableUntil: p.replayableUntil,
          })
          .onConflictDoUpdate({
            target: bridgeUnservedPayments.orderId,
            set: {
              attempts: sql`${bridgeUnservedPayments.attempts} + 1`,
              lastError: p.error,
              lastFailedAt: now,
            },
          });
      }),
    served: (orderId) =>
      quietly("served", orderId, () =>
        db
          .update(bridgeUnservedPayments)
          .set({ servedAt: clock.now() })
          .where(and(eq(bridgeUnservedPayments.orderId, orderId), isNull(bridgeUnservedPayments.servedAt))),
      ),
  };
}

type Row = typeof bridgeUnservedPayments.$inferSelect;

export const BRIDGE_FAILED_ID = /^fail_(ord_[1-9A-HJ-NP-Za-km-z]{1,64})$/;

/** The row as an item of the failed-payments list (same shape as a settlement-derived one). */
export function unservedView(deps: { chains: Pick<ChainRegistry, "byChainId" | "networks"> }, row: Row) {
  return {
    id: `fail_${row.orderId}`,
    kind: "bridge_unserved" as const,
    reason: row.lastError,
    status: (row.resolution ?? "open") as "open" | "refunded" | "dismissed",
    network: row.network,
    chain_id: row.chainId,
    tx_hash: row.txHash,
    log_index: row.logIndex,
    explorer_url: explorerResolver(deps.chains)(row.chainId),
    payer: row.payer,
    merchant_id: null,
    merchant_address: row.merchantAddress,
    token: row.token,
    asset: assetResolver(deps.chains)(row.chainId, row.token),
    total_amount: row.totalAmount,
    merchant_amount: row.totalAmount,
    treasury_amount: "0",
    ip_creator_amount: "0",
    order_id: row.orderId,
    quote_id: null,
    quote_expires_at: null,
    receipt_id: null,
    settlement_state: null,
    seen_at: row.firstFailedAt.toISOString(),
    bridge: {
      provider: row.provider,
      attempts: row.attempts,
      last_failed_at: row.lastFailedAt.toISOString(),
      replayable_until: row.replayableUntil.toISOString(),
    },
    resolution:
      row.resolution && row.resolvedAt
        ? {
            resolution: row.resolution,
            note: row.note ?? "",
            refund_tx_hash: row.refundTxHash,
            resolved_by: row.resolvedBy ?? "",
            resolved_at: row.resolvedAt.toISOString(),
          }
        : null,
  };
}

export interface UnservedFilters {
  status: "open" | "refunded" | "dismissed" | "all";
  network?: string | undefined;
  payer?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Oldest first (seq ascending) instead of newest first. */
  ascending?: boolean | undefined;
  /** Keyset position: rows past this seq in the list's direction. */
  pastSeq?: bigint | undefined;
  limit: number;
}

function unservedWhere(filters: Omit<UnservedFilters, "limit" | "pastSeq" | "ascending">): SQL[] {
  const t = bridgeUnservedPayments;
  const conditions: SQL[] = [isNull(t.servedAt)];
  if (filters.status === "open") conditions.push(isNull(t.resolution));
  else if (filters.status !== "all") conditions.push(eq(t.resolution, filters.status));
  if (filters.network) conditions.push(eq(t.network, filters.network));
  if (filters.payer) conditions.push(eq(t.payer, filters.payer));
  if (filters.from) conditions.push(gte(t.firstFailedAt, filters.from));
  if (filters.to) conditions.push(lt(t.firstFailedAt, filters.to));
  return conditions;
}

/** Unserved bridge payments, newest first (seq descending) unless `ascending`; served ones are never listed. */
export function listUnserved(db: Database, filters: UnservedFilters): Promise<Row[]> {
  const t = bridgeUnservedPayments;
  const conditions = unservedWhere(filters);
  if (filters.pastSeq !== undefined) {
    conditions.push((filters.ascending ? gt : lt)(t.seq, filters.pastSeq));
  }
  return db
    .select()
    .from(t)
    .where(and(...conditions))
    .orderBy((filters.ascending ? asc : desc)(t.seq))
    .limit(filters.limit);
}

/** How many unserved bridge payments the filters match (the failed-payments total, decision 0077). */
export async function countUnserved(
  db: Database,
  filters: Omit<UnservedFilters, "limit" | "pastSeq" | "ascending">,
): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(bridgeUnservedPayments)
    .where(and(...unservedWhere(filters)));
  return row?.n ?? 0;
}

export interface UnservedResolution {
  resolution: "refunded" | "dismissed";
  note: string;
  refundTxHash?: string | undefined;
}

/** Records the operator's decision on one unserved bridge payment; 404 unknown or served, 409 replayable or done. */
export async function resolveUnserved(
  deps: { chains: Pick<ChainRegistry, "byChainId" | "networks"> } & {
    db: { db: Database };
    clock: { now(): Date };
  },
  orderId: string,
  resolution: UnservedResolution,
  actor: OperatorActor,
) {
  const now = deps.clock.now();
  const id = `fail_${orderId}`;
  return deps.db.db.transaction(async (tx) => {
    const t = bridgeUnservedPayments;
    const [row] = await tx.select().from(t).where(eq(t.orderId, orderId)).for("update");
    if (!row || row.servedAt !== null)
      throw new AppError("failed_payment_not_found", `no failed payment ${id}`);
    if (row.resolution !== null) throw new AppError("conflict", `${id} was already ${row.resolution}`);
    if (row.replayableUntil > now) {
      throw new AppError(
        "conflict",
        `the payer can still replay this payment until ${row.replayableUntil.toISOString()}; resolve it after that`,
      );
    }
    const [saved] = await tx
      .update(t)
      .set({
        resolution: resolution.resolution,
        note: resolution.note,
        refundTxHash: resolution.refundTxHash ?? null,
        resolvedBy: actor.adminId,
        resolvedAt: now,
      })
      .where(and(eq(t.orderId, orderId), isNull(t.resolution), isNull(t.servedAt)))
      .returning();
    if (!saved) throw new AppError("conflict", `${id} was resolved by another operator meanwhile`);
    await auditOperatorAction(
      tx,
      actor,
      {
        action: `failed_payment.${resolution.resolution}`,
        target: { type: "bridge_order", id },
        before: { status: "open" },
        after: {
          status: resolution.resolution,
          note: resolution.note,
          refund_tx_hash: resolution.refundTxHash ?? null,
        },
        details: {
          kind: "bridge_unserved",
          tx_hash: row.txHash,
          network: row.network,
          provider: row.provider,
        },
      },
      now,
    );
    return unservedView(deps, saved);
  });
}
