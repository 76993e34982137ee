/**
 * Marketplace moderation (SPEC §3.1, §4.3; docs/decisions/0067-listing-revisions.md): the operator queue and the
 * two decisions. A decision names the revision the operator reviewed (`revision_id`); it applies only while that
 * revision is still the pending one, under the listing row's lock (the same lock every edit takes), so an edit
 * racing the decision answers the operator 409 `listing_revision_stale` and is never approved unseen. The audit
 * event and the `listing.approved` / `listing.rejected` webhook are written in the same transaction (DESIGN §8).
 *
 * Approving makes the revision live (public while the listing is `approved`); rejecting keeps the live revision,
 * if any, public; a listing never approved and rejected is `rejected` and never public.
 */
import { type Database, listingRevisions, listings, merchants, type Transaction } from "@tollgate/db";
import { AppError, type ListingCategory, type ListingState } from "@tollgate/shared";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import { and, asc, eq, gt, isNotNull, or, type SQL, sql } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import { recordAudit } from "../audit";
import type { ListingRow } from "./listing-service";

export interface ModerationDeps {
  db: { db: Database };
  clock: Clock;
}

export interface QueueFilter {
  status?: ListingState | undefined;
  category?: ListingCategory | undefined;
  merchantId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

export type QueueRow = ListingRow & { merchantName: string };

/** Opaque keyset cursor over (updated_at, id): base64url of `<epoch ms>:<id>`. */
export function encodeQueueCursor(row: Pick<ListingRow, "updatedAt" | "id">): string {
  return Buffer.from(`${row.updatedAt.getTime()}:${row.id}`, "utf8").toString("base64url");
}

function decodeQueueCursor(cursor: string): { at: Date; id: string } {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^(\d{1,15}):(lst_[1-9A-HJ-NP-Za-km-z]{8,64})$/.exec(decoded);
  if (!match) {
    throw new AppError("validation_failed", "cursor is not one this API issued", {
      errors: [{ path: "cursor", code: "invalid_format", message: "use next_cursor from a previous page" }],
    });
  }
  return { at: new Date(Number(match[1])), id: match[2]! };
}

/** The queue, oldest change first: by default what waits for a decision. */
export async function listModerationQueue(
  deps: Pick<ModerationDeps, "db">,
  filter: QueueFilter,
): Promise<{ rows: QueueRow[]; nextCursor: string | null }> {
  // `pending` is what waits for a decision: a listing with a pending revision, whatever is live meanwhile.
  const conditions: SQL[] = [
    (filter.status ?? "pending") === "pending"
      ? isNotNull(listings.pendingRevisionId)
      : eq(listings.status, filter.status!),
  ];
  if (filter.category) conditions.push(sql`${listings.content} ->> 'category' = ${filter.category}`);
  if (filter.merchantId) conditions.push(eq(listings.merchantId, filter.merchantId));
  if (filter.cursor) {
    const { at, id } = decodeQueueCursor(filter.cursor);
    conditions.push(or(gt(listings.updatedAt, at), and(eq(listings.updatedAt, at), gt(listings.id, id)))!);
  }
  const found = await deps.db.db
    .select({ listing: listings, merchantName: merchants.name })
    .from(listings)
    .innerJoin(merchants, eq(merchants.id, listings.merchantId))
    .where(and(...conditions))
    .orderBy(asc(listings.updatedAt), asc(listings.id))
    .limit(filter.limit + 1);
  const rows = found
    .slice(0, filter.limit)
    .map(({ listing, merchantName }) => ({ ...listing, merchantName }));
  const last = rows.at(-1);
  return { rows, nextCursor: found.length > filter.limit && last ? encodeQueueCursor(last) : null };
}

export interface Decision {
  listingId: string;
  /** The revision the operator reviewed: the decision applies only while it is the pending one. */
  revisionId: string;
  /** Rejections only: shown to the merchant. */
  reason?: string | undefined;
  admin: { id: string };
  ip?: string | undefined;
  requestId?: string | undefined;
}

/** The listing, locked; 404 when missing. */
export async function lockListing(tx: Transaction, listingId: string): Promise<ListingRow> {
  const [row] = await tx.select().from(listings).where(eq(listings.id, listingId)).for("update");
  if (!row) throw new AppError("listing_not_found", `no listing ${listingId}`);
  return row;
}

async function decide(
  deps: ModerationDeps,
  decision: Decision,
  outcome: "approved" | "rejected",
): Promise<ListingRow> {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const before = await lockListing(tx, decision.listingId);
    if (before.pendingRevisionId === null) {
      throw new AppError(
        "listing_not_pending",
        `listing ${decision.listingId} has no revision waiting for a decision; it was decided already`,
      );
    }
    if (before.pendingRevisionId !== decision.revisionId) {
      throw new AppError(
        "listing_revision_stale",
        `listing ${decision.listingId} has a newer revision (${before.pendingRevisionId}) than the one reviewed`,
      );
    }
    const [revision] = await tx
      .update(listingRevisions)
      .set({
        status: outcome,
        reason: outcome === "rejected" ? (decision.reason ?? null) : null,
        decidedAt: now,
        decidedBy: decision.admin.id,
      })
      .where(and(eq(listingRevisions.id, decision.revisionId), eq(listingRevisions.status, "pending")))
      .returning();
    if (!revision)
      throw new AppError("listing_revision_stale", `revision ${decision.revisionId} is not pending`);
    const [row] = await tx
      .update(listings)
      .set(
        outcome === "approved"
          ? {
              // A suspended listing stays suspended: the approved revision shows once it is republished.
              status: before.status === "suspended" ? "suspended" : "approved",
              liveRevisionId: revision.id,
              pendingRevisionId: null,
              rejectionReason: null,
              publishedAt: now,
              decidedAt: now,
              decidedBy: decision.admin.id,
            }
          : {
              status: before.liveRevisionId === null ? "rejected" : before.status,
              pendingRevisionId: null,
              rejectionReason: decision.reason ?? null,
              decidedAt: now,
              decidedBy: decision.admin.id,
            },
      )
      .where(eq(listings.id, before.id))
      .returning();
    await recordAudit(
      tx,
      {
        actor: { type: "admin", id: decision.admin.id },
        action: `listing.${outcome}`,
        target: { type: "listing", id: row!.id },
        ip: decision.ip,
        requestId: decision.requestId,
        before: { status: before.status, live_revision_id: before.liveRevisionId },
        after: { status: row!.status, live_revision_id: row!.liveRevisionId },
        details: {
          merchant_id: row!.merchantId,
          revision_id: revision.id,
          revision: revision.number,
          route: revision.content.route,
          title: revision.content.title,
          merchant_name: revision.merchantName,
          gateway: revision.gateway,
          ...(outcome === "rejected" ? { reason: revision.reason } : {}),
        },
      },
      now,
    );
    await enqueueWebhookEvents(
      tx,
      [
        {
          merchantId: row!.merchantId,
          type: outcome === "approved" ? "listing.approved" : "listing.rejected",
          data: {
            listing_id: row!.id,
            merchant_id: row!.merchantId,
            revision: revision.number,
            route: revision.content.route,
            title: revision.content.title,
            status: outcome,
            reason: revision.reason,
            decided_at: now.toISOString(),
          },
        },
      ],
      now,
    );
    return row!;
  });
}

export function approveListing(deps: ModerationDeps, decision: Decision): Promise<ListingRow> {
  return decide(deps, decision, "approved");
}

export function rejectListing(
  deps: ModerationDeps,
  decision: Decision & { reason: string },
): Promise<ListingRow> {
  return decide(deps, decision, "rejected");
}
