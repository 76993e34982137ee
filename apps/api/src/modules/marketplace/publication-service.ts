/**
 * Taking an approved listing down and putting it back (docs/decisions/0067-listing-revisions.md): an operator
 * suspends an `approved` listing with a reason the merchant sees, and republishes a `suspended` one. Both are
 * conditional on the state under the listing row's lock and audited in the same transaction. A suspended listing
 * keeps its live revision (republishing shows it again) and may still be edited; its revisions are still decided.
 */
import { listings } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { recordAudit } from "../audit";
import type { ListingRow } from "./listing-service";
import { lockListing, type ModerationDeps } from "./moderation-service";

export interface PublicationChange {
  listingId: string;
  /** Suspensions: shown to the merchant. Republishing: optional note, audited only. */
  reason?: string | undefined;
  admin: { id: string };
  ip?: string | undefined;
  requestId?: string | undefined;
}

export function suspendListing(
  deps: ModerationDeps,
  change: PublicationChange & { reason: string },
): Promise<ListingRow> {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const before = await lockListing(tx, change.listingId);
    if (before.status !== "approved") {
      throw new AppError(
        "listing_not_approved",
        `listing ${change.listingId} is ${before.status}, not public`,
      );
    }
    const [row] = await tx
      .update(listings)
      .set({
        status: "suspended",
        suspensionReason: change.reason,
        suspendedAt: now,
        suspendedBy: change.admin.id,
        updatedAt: now,
      })
      .where(eq(listings.id, before.id))
      .returning();
    await recordAudit(
      tx,
      {
        actor: { type: "admin", id: change.admin.id },
        action: "listing.suspended",
        target: { type: "listing", id: before.id },
        ip: change.ip,
        requestId: change.requestId,
        before: { status: before.status },
        after: { status: "suspended" },
        details: {
          merchant_id: before.merchantId,
          live_revision_id: before.liveRevisionId,
          reason: change.reason,
        },
      },
      now,
    );
    return row!;
  });
}

export function republishListing(deps: ModerationDeps, change: PublicationChange): Promise<ListingRow> {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const before = await lockListing(tx, change.listingId);
    if (before.status !== "suspended" || before.liveRevisionId === null) {
      throw new AppError(
        "listing_not_suspended",
        `listing ${change.listingId} is ${before.status}, not suspended`,
      );
    }
    const [row] = await tx
      .update(listings)
      .set({
        status: "approved",
        suspensionReason: null,
        suspendedAt: null,
        suspendedBy: null,
        updatedAt: now,
      })
      .where(eq(listings.id, before.id))
      .returning();
    await recordAudit(
      tx,
      {
        actor: { type: "admin", id: change.admin.id },
        action: "listing.republished",
        target: { type: "listing", id: before.id },
        ip: change.ip,
        requestId: change.requestId,
        before: { status: before.status, suspension_reason: before.suspensionReason },
        after: { status: "approved" },
        details: {
          merchant_id: before.merchantId,
          live_revision_id: before.liveRevisionId,
          ...(change.reason ? { note: change.reason } : {}),
        },
      },
      now,
    );
    return row!;
  });
}
