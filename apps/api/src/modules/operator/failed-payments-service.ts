/**
 * Failed payments for operators (`/api/dashboard/failed`): money that moved on chain and bought nothing, so
 * an operator refunds it by hand or dismisses it. Derived on read from the indexer's `settlements` (every Payment log
 * is there, whether or not anyone called /v1/pay), joined with quotes, receipts and the operator's resolutions:
 * - `unmatched_payment`: the log named a quote it does not pay (underpaid, wrong merchant/chain/token, unknown
 *   quote: `settlements.quote_mismatch`); never orphaned.
 * - `paid_without_receipt`: a confirmed or final log paid a quote that has no receipt, either mined after the quote
 *   expired beyond the late-payment grace (/v1/pay refuses it: `paid_after_expiry`), or mined in time but never
 *   claimed within {@link UNCLAIMED_AFTER_MS} of the quote's expiry (`receipt_never_claimed`).
 * - `reverted`: an orphaned log the merchant had been told was confirmed, or whose receipt was issued.
 * - `bridge_unserved`: a bridge order paid on chain whose upstream never delivered (../bridge/unserved-service.ts).
 * Ids are `fail_<settlement id>` (bridge: `fail_<order id>`). Invariants: one resolution per settlement (primary key; a second or racing resolve
 * is 409), written in one transaction with its audit event; listing is keyset-paginated on the settlement id.
 */
import { type Database, failedPaymentResolutions, quotes, receipts, settlements } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { and, asc, count, desc, eq, gt, gte, isNull, lt, type SQL, sql } from "drizzle-orm";
import {
  assertListedNetwork,
  DIGITS,
  decodeCursor,
  encodeCursor,
  type ListSort,
} from "../../http/list-query";
import type { Clock } from "../../infra/clock";
import type { OperatorActor } from "../audit";
import { auditOperatorAction } from "../audit";
import { BRIDGE_FAILED_ID, countUnserved, listUnserved, resolveUnserved, unservedView } from "../bridge";
import { assetResolver, explorerResolver } from "../chains";
import type { AdminReadDeps } from "./read-common";

/** A quote paid in time whose receipt nobody claimed this long after its expiry is listed (docs/decisions/0028-operator-dashboards.md). */
export const UNCLAIMED_AFTER_MS = 24 * 3_600_000;

export const FAILED_ID = /^fail_([1-9][0-9]{0,18}|ord_[1-9A-HJ-NP-Za-km-z]{1,64})$/;
export const failedId = (settlementId: bigint) => `fail_${settlementId}`;

export interface FailedFilters {
  status: "open" | "refunded" | "dismissed" | "all";
  kind?: "unmatched_payment" | "paid_without_receipt" | "reverted" | "bridge_unserved" | undefined;
  network?: string | undefined;
  merchant?: string | undefined;
  payer?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** seen_at either way (default newest first; decision 0077). */
  sort?: ListSort<"seen_at"> | undefined;
  cursor?: string | undefined;
  limit: number;
}

type SettlementKind = "unmatched_payment" | "paid_without_receipt" | "reverted";
type FailedDeps = AdminReadDeps & { env: { pay: { latePaymentGraceSeconds: number } } };

/** The kind of a settlement row joined with its quote and receipt, or null when nothing failed. */
function kindOf(deps: FailedDeps): SQL<string | null> {
  const now = deps.clock.now();
  // Raw parameters go as text with a cast: the postgres-js driver does not serialise a Date outside a column.
  const unclaimedBefore = new Date(now.getTime() - UNCLAIMED_AFTER_MS).toISOString();
  const graceSeconds = deps.env.pay.latePaymentGraceSeconds;
  return sql<string | null>`case
    when ${settlements.quoteMismatch} is not null and ${settlements.state} <> 'orphaned' then 'unmatched_payment'
    when ${settlements.state} = 'orphaned' and (${settlements.notifiedAt} is not null or ${receipts.id} is not null)
      then 'reverted'
    when ${settlements.quoteId} is not null and ${receipts.id} is null
      and ${settlements.state} in ('confirmed', 'final')
      and (${settlements.seenAt} > ${quotes.expiresAt} + make_interval(secs => ${graceSeconds}::int)
        or ${quotes.expiresAt} < ${unclaimedBefore}::timestamptz)
      then 'paid_without_receipt'
    end`;
}

function reasonOf(row: Row, graceSeconds: number): string {
  if (row.kind === "unmatched_payment") return row.settlement.quoteMismatch?.reason ?? "unknown_quote";
  if (row.kind === "reverted")
    return row.receiptState ? `receipt_${row.receiptState}` : "orphaned_after_notice";
  const expiresAt = row.quoteExpiresAt?.getTime() ?? 0;
  return row.settlement.seenAt.getTime() > expiresAt + graceSeconds * 1000
    ? "paid_after_expiry"
    : "receipt_never_claimed";
}

interface Row {
  settlement: typeof settlements.$inferSelect;
  kind: string | null;
  quoteExpiresAt: Date | null;
  quoteMerchantId: string | null;
  receiptId: string | null;
  receiptState: string | null;
  resolution: typeof failedPaymentResolutions.$inferSelect | null;
}

function baseQuery(deps: FailedDeps, db: Database) {
  return db
    .select({
      settlement: settlements,
      kind: kindOf(deps),
      quoteExpiresAt: quotes.expiresAt,
      quoteMerchantId: quotes.merchantId,
      receiptId: receipts.id,
      receiptState: receipts.state,
      resolution: failedPaymentResolutions,
    })
    .from(settlements)
    .leftJoin(quotes, eq(quotes.id, settlements.quoteId))
    .leftJoin(receipts, eq(receipts.quoteId, settlements.quoteId))
    .leftJoin(failedPaymentResolutions, eq(failedPaymentResolutions.settlementId, settlements.id));
}

function view(deps: FailedDeps, row: Row) {
  const asset = assetResolver(deps.chains)(row.settlement.chainId, row.settlement.token);
  const s = row.settlement;
  return {
    id: failedId(s.id),
    kind: row.kind as SettlementKind,
    reason: reasonOf(row, deps.env.pay.latePaymentGraceSeconds),
    status: (row.resolution?.resolution ?? "open") as "open" | "refunded" | "dismissed",
    network: s.network,
    chain_id: s.chainId,
    tx_hash: s.txHash,
    log_index: s.logIndex,
    explorer_url: explorerResolver(deps.chains)(s.chainId),
    payer: s.payer,
    merchant_id: s.merchantId ?? row.quoteMerchantId,
    merchant_address: s.merchantAddress,
    token: s.token,
    asset,
    total_amount: s.totalAmount,
    merchant_amount: s.merchantAmount,
    treasury_amount: s.treasuryAmount,
    ip_creator_amount: s.ipCreatorAmount,
    order_id: s.orderId,
    quote_id: s.quoteId ?? s.quoteMismatch?.quote_id ?? null,
    quote_expires_at: row.quoteExpiresAt?.toISOString() ?? null,
    receipt_id: row.receiptId,
    settlement_state: s.state as typeof s.state | null,
    seen_at: s.seenAt.toISOString(),
    bridge: null as ReturnType<typeof unservedView>["bridge"] | null,
    resolution: row.resolution
      ? {
          resolution: row.resolution.resolution,
          note: row.resolution.note,
          refund_tx_hash: row.resolution.refundTxHash,
          resolved_by: row.resolution.resolvedBy,
          resolved_at: row.resolution.resolvedAt.toISOString(),
        }
      : null,
  };
}

function settlementFailuresWhere(deps: FailedDeps, filters: FailedFilters): SQL | undefined {
  const kind = kindOf(deps);
  const conditions: (SQL | undefined)[] = [
    filters.kind ? sql`${kind} = ${filters.kind}` : sql`${kind} is not null`,
  ];
  if (filters.status === "open") conditions.push(isNull(failedPaymentResolutions.settlementId));
  else if (filters.status !== "all") conditions.push(eq(failedPaymentResolutions.resolution, filters.status));
  if (filters.network) conditions.push(eq(settlements.network, filters.network));
  if (filters.merchant) conditions.push(eq(settlements.merchantId, filters.merchant));
  if (filters.payer) conditions.push(eq(settlements.payer, filters.payer));
  if (filters.from) conditions.push(gte(settlements.seenAt, filters.from));
  if (filters.to) conditions.push(lt(settlements.seenAt, filters.to));
  return and(...conditions);
}

/** Settlement-derived failures, newest settlement first unless `ascending`, past the `pastId` position. */
function listSettlementFailures(
  deps: FailedDeps,
  filters: FailedFilters,
  pastId: bigint | undefined,
  ascending: boolean,
) {
  const where = settlementFailuresWhere(deps, filters);
  const past = pastId === undefined ? undefined : (ascending ? gt : lt)(settlements.id, pastId);
  return baseQuery(deps, deps.db.db)
    .where(and(where, past))
    .orderBy((ascending ? asc : desc)(settlements.id))
    .limit(filters.limit + 1);
}

/** The exact count of both streams over the same filters (decision 0077). */
async function countFailed(
  deps: FailedDeps,
  filters: FailedFilters,
  streams: { settled: boolean; bridged: boolean },
) {
  const [settled, bridged] = await Promise.all([
    streams.settled
      ? deps.db.db
          .select({ n: count() })
          .from(settlements)
          .leftJoin(quotes, eq(quotes.id, settlements.quoteId))
          .leftJoin(receipts, eq(receipts.quoteId, settlements.quoteId))
          .leftJoin(failedPaymentResolutions, eq(failedPaymentResolutions.settlementId, settlements.id))
          .where(settlementFailuresWhere(deps, filters))
          .then(([row]) => row?.n ?? 0)
      : 0,
    streams.bridged ? countUnserved(deps.db.db, filters) : 0,
  ]);
  return settled + bridged;
}

type FailedView = ReturnType<typeof view> | ReturnType<typeof unservedView>;

/**
 * The queue merges two keyset streams: settlements (by id) and unserved bridge payments (by seq). The cursor keeps
 * each stream's position (`""`: not started), so every item is listed once whatever the interleaving; a page
 * interleaves the heads by `seen_at`, newest first unless `sort=seen_at` (then both streams run oldest first).
 * `total` is the exact count of both streams over the filters.
 */
export async function listFailedPayments(deps: FailedDeps, filters: FailedFilters) {
  assertListedNetwork(deps.chains.networks, filters.network);
  let positions: [string, string] = ["", ""];
  if (filters.cursor !== undefined) {
    const [a, b] = decodeCursor(filters.cursor, 2, (part) => part === "" || DIGITS.test(part));
    positions = [a!, b!];
  }
  const ascending = filters.sort?.direction === "asc";
  const wantSettlements = filters.kind !== "bridge_unserved";
  // Bridge rows have no merchant id (the provider is named instead): a merchant filter leaves them out.
  const wantBridge = (filters.kind === undefined || filters.kind === "bridge_unserved") && !filters.merchant;
  const [settled, bridged, total] = await Promise.all([
    wantSettlements
      ? listSettlementFailures(
          deps,
          filters,
          positions[0] === "" ? undefined : BigInt(positions[0]),
          ascending,
        )
      : [],
    wantBridge
      ? listUnserved(deps.db.db, {
          ...filters,
          ascending,
          pastSeq: positions[1] === "" ? undefined : BigInt(positions[1]),
          limit: filters.limit + 1,
        })
      : [],
    countFailed(deps, filters, { settled: wantSettlements, bridged: wantBridge }),
  ]);
  const failed: FailedView[] = [];
  let [i, j] = [0, 0];
  const settledFirst = (s: Date, b: Date) => (ascending ? s <= b : s >= b);
  while (failed.length < filters.limit && (i < settled.length || j < bridged.length)) {
    const s = settled[i];
    const b = bridged[j];
    if (s && (!b || settledFirst(s.settlement.seenAt, b.firstFailedAt))) {
      failed.push(view(deps, s));
      positions[0] = s.settlement.id.toString();
      i += 1;
    } else if (b) {
      failed.push(unservedView(deps, b));
      positions[1] = b.seq.toString();
      j += 1;
    }
  }
  const more = i < settled.length || j < bridged.length;
  return { failed, next_cursor: more ? encodeCursor(positions) : null, total };
}

export interface Resolution {
  resolution: "refunded" | "dismissed";
  note: string;
  refundTxHash?: string | undefined;
}

/** Records the operator's decision on one failed payment, with its audit event; 404 unknown, 409 already resolved. */
export async function resolveFailedPayment(
  deps: FailedDeps & { clock: Clock },
  id: string,
  resolution: Resolution,
  actor: OperatorActor,
) {
  const bridgeOrder = BRIDGE_FAILED_ID.exec(id)?.[1];
  if (bridgeOrder) return resolveUnserved(deps, bridgeOrder, resolution, actor);
  const now = deps.clock.now();
  const settlementId = BigInt(id.slice("fail_".length));
  return deps.db.db.transaction(async (tx) => {
    const [row] = await baseQuery(deps, tx as unknown as Database)
      .where(eq(settlements.id, settlementId))
      .for("update", { of: settlements });
    if (!row || row.kind === null) throw new AppError("failed_payment_not_found", `no failed payment ${id}`);
    if (row.resolution) {
      throw new AppError("conflict", `${id} was already ${row.resolution.resolution}`);
    }
    const inserted = await tx
      .insert(failedPaymentResolutions)
      .values({
        settlementId,
        kind: row.kind as SettlementKind,
        resolution: resolution.resolution,
        note: resolution.note,
        refundTxHash: resolution.refundTxHash ?? null,
        resolvedBy: actor.adminId,
        resolvedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    const saved = inserted[0];
    if (!saved) throw new AppError("conflict", `${id} was resolved by another operator meanwhile`);
    await auditOperatorAction(
      tx,
      actor,
      {
        action: `failed_payment.${resolution.resolution}`,
        target: { type: "settlement", id },
        before: { status: "open" },
        after: {
          status: resolution.resolution,
          note: resolution.note,
          refund_tx_hash: resolution.refundTxHash ?? null,
        },
        details: { kind: row.kind, tx_hash: row.settlement.txHash, network: row.settlement.network },
      },
      now,
    );
    return view(deps, { ...row, resolution: saved });
  });
}
