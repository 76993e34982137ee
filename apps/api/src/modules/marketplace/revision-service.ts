/**
 * Listing revisions (SPEC §3.1; docs/decisions/0067-listing-revisions.md). A revision freezes everything published
 * with a listing: its content, the merchant name shown, and the hosted gateway route it is exported through.
 *
 * Invariants:
 * - every change to what a listing publishes opens a new pending revision here, in the transaction of the change,
 *   with an audit row; the live revision (what is public) is never touched by a merchant;
 * - at most one revision is pending per listing: a newer one supersedes it;
 * - callers hold the listing rows' lock (SELECT ... FOR UPDATE) so a decision and an edit are serialised.
 *
 * A leaf module: the merchants and gateway modules call {@link reviseMerchantListings} when a merchant renames
 * itself or changes its gateway route, so it imports nothing of theirs.
 */
import {
  gatewayRoutes,
  type ListingContentColumn,
  type ListingGatewaySnapshot,
  listingRevisions,
  listings,
  merchants,
  type Transaction,
} from "@tollgate/db";
import { newId } from "@tollgate/shared";
import { and, asc, eq, inArray, ne } from "drizzle-orm";
import { type AuditActor, type AuditRequest, recordAudit } from "../audit";

export type ListingRevisionRow = typeof listingRevisions.$inferSelect;
type ListingRow = typeof listings.$inferSelect;
type RevisionCause = ListingRevisionRow["cause"];

/** What a revision publishes besides the listing's own content. */
export interface PublishedWith {
  merchantName: string;
  gateway: ListingGatewaySnapshot | null;
}

/** The merchant name and gateway route a new revision of `merchantId`'s listings publishes, read in `tx`. */
export async function publishedWith(tx: Transaction, merchantId: string): Promise<PublishedWith> {
  const [merchant] = await tx
    .select({ name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  const [route] = await tx
    .select({ slug: gatewayRoutes.slug, upstreamUrl: gatewayRoutes.upstreamUrl, tier: gatewayRoutes.tier })
    .from(gatewayRoutes)
    .where(eq(gatewayRoutes.merchantId, merchantId));
  return {
    merchantName: merchant?.name ?? "",
    gateway: route ? { slug: route.slug, upstream_url: route.upstreamUrl, tier: route.tier } : null,
  };
}

export interface OpenRevision {
  content: ListingContentColumn;
  with: PublishedWith;
  cause: RevisionCause;
  actor: AuditActor;
  request?: AuditRequest | undefined;
  now: Date;
}

/**
 * Opens a pending revision of the (locked) listing `current` and points the listing at it. A listing never approved
 * goes back to `pending`; an approved or suspended one keeps its state and its live revision.
 */
export async function openRevision(
  tx: Transaction,
  current: ListingRow,
  change: OpenRevision,
): Promise<{ listing: ListingRow; revision: ListingRevisionRow }> {
  if (current.pendingRevisionId) {
    await tx
      .update(listingRevisions)
      .set({ status: "superseded" })
      .where(and(eq(listingRevisions.id, current.pendingRevisionId), eq(listingRevisions.status, "pending")));
  }
  const number = current.revision + 1;
  const [revision] = await tx
    .insert(listingRevisions)
    .values({
      id: newId("listingRevision"),
      listingId: current.id,
      number,
      status: "pending",
      cause: change.cause,
      content: change.content,
      merchantName: change.with.merchantName,
      gateway: change.with.gateway,
      createdAt: change.now,
    })
    .returning();
  const neverApproved = current.liveRevisionId === null;
  const [listing] = await tx
    .update(listings)
    .set({
      content: change.content,
      revision: number,
      pendingRevisionId: revision!.id,
      rejectionReason: null,
      ...(neverApproved ? { status: "pending" as const } : {}),
      updatedAt: change.now,
    })
    .where(eq(listings.id, current.id))
    .returning();
  await recordAudit(
    tx,
    {
      actor: change.actor,
      action: "listing.revision.created",
      target: { type: "listing", id: current.id },
      ip: change.request?.ip,
      requestId: change.request?.requestId,
      before: {
        status: current.status,
        revision: current.revision,
        pending_revision_id: current.pendingRevisionId,
      },
      after: { status: listing!.status, revision: number, pending_revision_id: revision!.id },
      details: {
        cause: change.cause,
        revision_id: revision!.id,
        merchant_id: current.merchantId,
        merchant_name: change.with.merchantName,
        gateway: change.with.gateway,
        route: change.content.route,
        title: change.content.title,
      },
    },
    change.now,
  );
  return { listing: listing!, revision: revision! };
}

function sameGateway(a: ListingGatewaySnapshot | null, b: ListingGatewaySnapshot | null): boolean {
  if (a === null || b === null) return a === b;
  return a.slug === b.slug && a.upstream_url === b.upstream_url && a.tier === b.tier;
}

/**
 * A merchant renamed itself or changed its gateway route (in `tx`, after the change): each listing whose newest
 * revision (pending, else live) publishes another name or route gets a new pending revision, so the change waits
 * for an operator. A listing only ever rejected is left alone; it takes the change when the merchant resubmits it.
 */
export async function reviseMerchantListings(
  tx: Transaction,
  merchantId: string,
  cause: "merchant_renamed" | "gateway_changed",
  request: AuditRequest,
  now: Date,
): Promise<number> {
  const rows = await tx
    .select()
    .from(listings)
    .where(and(eq(listings.merchantId, merchantId), ne(listings.status, "rejected")))
    .orderBy(asc(listings.id))
    .for("update");
  if (rows.length === 0) return 0;
  const next = await publishedWith(tx, merchantId);
  const basisIds = rows.map((row) => row.pendingRevisionId ?? row.liveRevisionId).filter((id) => id !== null);
  const bases = basisIds.length
    ? await tx.select().from(listingRevisions).where(inArray(listingRevisions.id, basisIds))
    : [];
  const byId = new Map(bases.map((revision) => [revision.id, revision]));
  let opened = 0;
  for (const row of rows) {
    const basis = byId.get(row.pendingRevisionId ?? row.liveRevisionId ?? "");
    if (basis && basis.merchantName === next.merchantName && sameGateway(basis.gateway, next.gateway))
      continue;
    await openRevision(tx, row, {
      content: basis?.content ?? row.content,
      with: next,
      cause,
      actor: { type: "merchant", id: merchantId },
      request,
      now,
    });
    opened++;
  }
  return opened;
}
