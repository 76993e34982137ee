/**
 * Taking an approved listing down and putting it back (docs/decisions/0067-listing-revisions.md): an operator
 * suspends an `approved` listing with a reason the merchant sees, and republishes a `suspended` one. Both are
 * conditional on the state under the listing row's lock and audited in the same transaction. A suspended listing
 * keeps its live revision (republishing shows it again) and may still be edited; its revisions are still decided.
 */
import { listings } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { type AuditEntry, auditOperatorAction, type OperatorActor } from "../audit";
import type { ListingRow } from "./listing-service";
import { lockListing, type ModerationDeps } from "./moderation-service";

export interface PublicationChange {
  listingId: string;
  /** Suspensions: shown to the merchant. Republishing: optional note, audited only. */
  reason?: string | undefined;
  actor: OperatorActor;
}

/**
 * One publication change: the state the listing must be in (checked under its row lock), the columns it sets,
 * and its audit event. Both changes keep the listing's live revision; the event names the merchant and that
 * revision, whatever else it says.
 */
interface PublicationStep {
  /** Throws the change's 409 when the locked listing is not in the state it changes from. */
  assertFrom(before: ListingRow): void;
  set(now: Date): Partial<typeof listings.$inferInsert>;
  action: string;
  audit(before: ListingRow): Required<Pick<AuditEntry, "before" | "after">> & Pick<AuditEntry, "details">;
}

function changePublication(
  deps: ModerationDeps,
  change: PublicationChange,
  step: PublicationStep,
): Promise<ListingRow> {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const before = await lockListing(tx, change.listingId);
    step.assertFrom(before);
    const [row] = await tx
      .update(listings)
      .set({ ...step.set(now), updatedAt: now })
      .where(eq(listings.id, before.id))
      .returning();
    const event = step.audit(before);
    await auditOperatorAction(
      tx,
      change.actor,
      {
        action: step.action,
        target: { type: "listing", id: before.id },
        before: event.before,
        after: event.after,
        details: {
          merchant_id: before.merchantId,
          live_revision_id: before.liveRevisionId,
          ...event.details,
        },
      },
      now,
    );
    return row!;
  });
}

export function suspendListing(
  deps: ModerationDeps,
  change: PublicationChange & { reason: string },
): Promise<ListingRow> {
  return changePublication(deps, change, {
    assertFrom(before) {
      if (before.status !== "approved") {
        throw new AppError(
          "listing_not_approved",
          `listing ${change.listingId} is ${before.status}, not public`,
        );
      }
    },
    set: (now) => ({
      status: "suspended",
      suspensionReason: change.reason,
      suspendedAt: now,
      suspendedBy: change.actor.adminId,
    }),
    action: "listing.suspended",
    audit: (before) => ({
      before: { status: before.status },
      after: { status: "suspended" },
      details: { reason: change.reason },
    }),
  });
}

export function republishListing(deps: ModerationDeps, change: PublicationChange): Promise<ListingRow> {
  return changePublication(deps, change, {
    assertFrom(before) {
      if (before.status !== "suspended" || before.liveRevisionId === null) {
        throw new AppError(
          "listing_not_suspended",
          `listing ${change.listingId} is ${before.status}, not suspended`,
        );
      }
    },
    set: () => ({ status: "approved", suspensionReason: null, suspendedAt: null, suspendedBy: null }),
    action: "listing.republished",
    audit: (before) => ({
      before: { status: before.status, suspension_reason: before.suspensionReason },
      after: { status: "approved" },
      details: change.reason ? { note: change.reason } : {},
    }),
  });
}
