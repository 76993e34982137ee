/**
 * Marketplace moderation (SPEC §3.1, §4.3): the operator queue and the two decisions.
 * A decision is one conditional UPDATE (`status = 'pending'`, and the revision the operator saw when named), so of
 * two parallel decisions on one listing exactly one changes the row and the other answers 409
 * `listing_not_pending`. The audit event and the `listing.approved` / `listing.rejected` webhook are written in
 * the same transaction as the decision (DESIGN §8).
 */
import { type Database, type ListingContentColumn, listings, merchants } from "@tollgate/db";
import { AppError, type ListingCategory, type ListingState } from "@tollgate/shared";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import { and, asc, eq, gt, or, type SQL, sql } from "drizzle-orm";
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
  const conditions: SQL[] = [eq(listings.status, filter.status ?? "pending")];
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
  /** When given, the decision applies only if the latest revision is still this one (the one reviewed). */
  revision?: number | undefined;
  /** Rejections only: shown to the merchant. */
  reason?: string | undefined;
  admin: { id: string };
  ip?: string | undefined;
  requestId?: string | undefined;
}

async function decide(
  deps: ModerationDeps,
  decision: Decision,
  outcome: "approved" | "rejected",
): Promise<ListingRow> {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const pending = and(
      eq(listings.id, decision.listingId),
      eq(listings.status, "pending"),
      ...(decision.revision !== undefined ? [eq(listings.revision, decision.revision)] : []),
    );
    const [before] = await tx
      .select()
      .from(listings)
      .where(eq(listings.id, decision.listingId))
      .for("update");
    if (!before) throw new AppError("listing_not_found", `no listing ${decision.listingId}`);
    // Approving publishes the reviewed revision: the SQL copies `content` into `published` in the same statement,
    // so an edit racing the decision can never be published unseen.
    const [row] = await tx
      .update(listings)
      .set(
        outcome === "approved"
          ? {
              status: "approved",
              rejectionReason: null,
              published: sql<ListingContentColumn>`${listings.content}`,
              publishedCategory: sql<string>`${listings.content} ->> 'category'`,
              publishedAt: now,
              decidedAt: now,
              decidedBy: decision.admin.id,
            }
          : {
              status: "rejected",
              rejectionReason: decision.reason ?? null,
              decidedAt: now,
              decidedBy: decision.admin.id,
            },
      )
      .where(pending)
      .returning();
    if (!row) {
      throw new AppError(
        "listing_not_pending",
        decision.revision !== undefined && before.revision !== decision.revision
          ? `listing ${decision.listingId} has a newer revision (${before.revision}) than the one reviewed`
          : `listing ${decision.listingId} is ${before.status}, not pending; it was decided already`,
      );
    }
    await recordAudit(
      tx,
      {
        actor: { type: "admin", id: decision.admin.id },
        action: `listing.${outcome}`,
        target: { type: "listing", id: row.id },
        ip: decision.ip,
        requestId: decision.requestId,
        before: { status: before.status, revision: before.revision },
        after: { status: row.status, revision: row.revision },
        details: {
          merchant_id: row.merchantId,
          route: row.content.route,
          title: row.content.title,
          ...(outcome === "rejected" ? { reason: row.rejectionReason } : {}),
        },
      },
      now,
    );
    await enqueueWebhookEvents(
      tx,
      [
        {
          merchantId: row.merchantId,
          type: outcome === "approved" ? "listing.approved" : "listing.rejected",
          data: {
            listing_id: row.id,
            merchant_id: row.merchantId,
            revision: row.revision,
            route: row.content.route,
            title: row.content.title,
            status: outcome,
            reason: row.rejectionReason,
            decided_at: now.toISOString(),
          },
        },
      ],
      now,
    );
    return row;
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
