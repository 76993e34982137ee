import { type Database, type ListingContentColumn, listingRevisions } from "@tollgate/db";
import { inArray } from "drizzle-orm";
import type { TListingRevisionView, TListingView } from "./listing.types";
import type { ListingRow } from "./listing-service";
import type { ListingRevisionRow } from "./revision-service";

type ContentView = Omit<TListingView["published"] & object, never>;

/** A listing with its live and pending revisions loaded (the views show both). */
export type ListingWithRevisions = ListingRow & {
  live: ListingRevisionRow | null;
  pending: ListingRevisionRow | null;
};

export function listingContentView(content: ListingContentColumn): ContentView {
  return {
    route: content.route,
    category: content.category,
    title: content.title,
    description: content.description,
    tier: content.tier,
    method: content.method as ContentView["method"],
    base_url: content.base_url,
    input_schema: content.input_schema,
    output_schema: content.output_schema,
  };
}

export function revisionView(revision: ListingRevisionRow): TListingRevisionView {
  return {
    id: revision.id,
    number: revision.number,
    status: revision.status,
    cause: revision.cause,
    ...listingContentView(revision.content),
    merchant_name: revision.merchantName,
    gateway: revision.gateway,
    reason: revision.reason,
    created_at: revision.createdAt.toISOString(),
    decided_at: revision.decidedAt?.toISOString() ?? null,
  };
}

/** Loads the live and pending revisions of `rows` in one query. */
export async function withRevisions<R extends ListingRow>(
  deps: { db: { db: Database } },
  rows: R[],
): Promise<(R & ListingWithRevisions)[]> {
  const ids = rows.flatMap((row) => [row.liveRevisionId, row.pendingRevisionId]).filter((id) => id !== null);
  const found = ids.length
    ? await deps.db.db.select().from(listingRevisions).where(inArray(listingRevisions.id, ids))
    : [];
  const byId = new Map(found.map((revision) => [revision.id, revision]));
  return rows.map((row) => ({
    ...row,
    live: row.liveRevisionId ? (byId.get(row.liveRevisionId) ?? null) : null,
    pending: row.pendingRevisionId ? (byId.get(row.pendingRevisionId) ?? null) : null,
  }));
}

export function listingView(row: ListingWithRevisions): TListingView {
  return {
    id: row.id,
    ...listingContentView(row.content),
    status: row.status,
    revision: row.revision,
    rejection_reason: row.rejectionReason,
    published: row.status === "approved" && row.live ? listingContentView(row.live.content) : null,
    live_revision: row.live ? revisionView(row.live) : null,
    pending_revision: row.pending ? revisionView(row.pending) : null,
    suspension_reason: row.suspensionReason,
    suspended_at: row.suspendedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** One listing's view, its revisions loaded. */
export async function loadListingView(
  deps: { db: { db: Database } },
  row: ListingRow,
): Promise<TListingView> {
  const [loaded] = await withRevisions(deps, [row]);
  return listingView(loaded!);
}
