/**
 * Marketplace listings, merchant side (SPEC §2.3, §3.1, §8). Dependencies come in as arguments.
 * - at most MAX_LISTINGS_PER_MERCHANT per merchant, counted under a lock on the merchant row, so parallel
 *   creations cannot overshoot;
 * - creation and every edit open a new pending revision (revision-service.ts); the live revision (what an
 *   operator approved) is untouched, so an approved listing stays public while its edit waits;
 * - another merchant's listing is answered exactly like a missing one (404).
 */
import { type Database, type ListingContentColumn, listings, merchants } from "@tollgate/db";
import {
  AppError,
  type CreateListingInput,
  isLoopbackHttpUrl,
  MAX_LISTINGS_PER_MERCHANT,
  newId,
  type UpdateListingInput,
} from "@tollgate/shared";
import { and, asc, count, eq } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import type { AuditRequest } from "../audit";
import { openRevision, publishedWith } from "./revision-service";

export interface ListingServiceDeps {
  db: { db: Database };
  clock: Clock;
  env: { developmentMode: boolean };
}

export type ListingRow = typeof listings.$inferSelect;

/** The merchant a listing belongs to, as the service needs it (tiers decide which `tier` values exist). */
export interface ListingOwner {
  id: string;
  tiers: Readonly<Record<string, bigint>>;
}

/** A stored description is null rather than empty. */
function orNull(text: string | null | undefined): string | null {
  return text === undefined || text === null || text === "" ? null : text;
}

/**
 * The tier a listing sells when the merchant names none (SPEC §2.3 has no `tier`): `standard`, the tier every
 * merchant gets at registration and the gateway route's default, else the merchant's cheapest tier (ties by name).
 * docs/decisions/0067-listing-revisions.md.
 */
export function defaultListingTier(tiers: Readonly<Record<string, bigint>>): string | undefined {
  if (Object.hasOwn(tiers, "standard")) return "standard";
  const names = Object.keys(tiers).sort((a, b) => {
    const byPrice = tiers[a]! - tiers[b]!;
    return byPrice !== 0n ? (byPrice < 0n ? -1 : 1) : a < b ? -1 : 1;
  });
  return names[0];
}

function checkContent(owner: ListingOwner, content: ListingContentColumn, developmentMode: boolean): void {
  if (!Object.hasOwn(owner.tiers, content.tier)) {
    throw new AppError("validation_failed", `tier ${content.tier} is not one of this merchant's tiers`, {
      errors: [{ path: "tier", code: "invalid_value", message: "must name one of the merchant's tiers" }],
    });
  }
  // Same rule as webhooks and gateway upstreams (DESIGN §9): plain http only to loopback in development.
  if (content.base_url && isLoopbackHttpUrl(content.base_url) && !developmentMode) {
    throw new AppError("validation_failed", "base_url must use https", {
      errors: [
        { path: "base_url", code: "url_not_https", message: "http is allowed only in development mode" },
      ],
    });
  }
}

export async function createListing(
  deps: ListingServiceDeps,
  owner: ListingOwner,
  input: CreateListingInput,
  request: AuditRequest = {},
): Promise<ListingRow> {
  const content: ListingContentColumn = {
    route: input.route,
    category: input.category,
    title: input.title,
    description: orNull(input.description),
    tier: input.tier ?? defaultListingTier(owner.tiers) ?? "standard",
    method: input.method ?? null,
    base_url: input.base_url ?? null,
    input_schema: input.input_schema ?? null,
    output_schema: input.output_schema ?? null,
  };
  checkContent(owner, content, deps.env.developmentMode);
  return deps.db.db.transaction(async (tx) => {
    // The merchant row is the lock every creation of this merchant queues on: count, then insert, atomically.
    const [locked] = await tx
      .select({ id: merchants.id })
      .from(merchants)
      .where(eq(merchants.id, owner.id))
      .for("update");
    if (!locked) throw new AppError("merchant_not_found", `no merchant ${owner.id}`);
    const [existing] = await tx
      .select({ n: count() })
      .from(listings)
      .where(eq(listings.merchantId, owner.id));
    if ((existing?.n ?? 0) >= MAX_LISTINGS_PER_MERCHANT) {
      throw new AppError(
        "listing_limit_reached",
        `a merchant may have at most ${MAX_LISTINGS_PER_MERCHANT} listings; delete one first`,
      );
    }
    const now = deps.clock.now();
    const [row] = await tx
      .insert(listings)
      .values({
        id: newId("listing"),
        merchantId: owner.id,
        status: "pending",
        revision: 0,
        content,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const opened = await openRevision(tx, row!, {
      content,
      with: await publishedWith(tx, owner.id),
      cause: "listing_created",
      actor: { type: "merchant", id: owner.id },
      request,
      now,
    });
    return opened.listing;
  });
}

export function listMerchantListings(
  deps: Pick<ListingServiceDeps, "db">,
  merchantId: string,
): Promise<ListingRow[]> {
  return deps.db.db
    .select()
    .from(listings)
    .where(eq(listings.merchantId, merchantId))
    .orderBy(asc(listings.createdAt), asc(listings.id));
}

/** The merchant's own listing; another merchant's, or none, is `listing_not_found`. */
export async function getMerchantListing(
  deps: Pick<ListingServiceDeps, "db">,
  merchantId: string,
  listingId: string,
): Promise<ListingRow> {
  const [row] = await deps.db.db
    .select()
    .from(listings)
    .where(and(eq(listings.id, listingId), eq(listings.merchantId, merchantId)));
  if (!row) throw new AppError("listing_not_found", `no listing ${listingId}`);
  return row;
}

/** PATCH: omitted fields keep their value; the result is a new pending revision (SPEC §3.1; docs/decisions/0067-listing-revisions.md). */
export async function updateListing(
  deps: ListingServiceDeps,
  owner: ListingOwner,
  listingId: string,
  input: UpdateListingInput,
  request: AuditRequest = {},
): Promise<ListingRow> {
  return deps.db.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(listings)
      .where(and(eq(listings.id, listingId), eq(listings.merchantId, owner.id)))
      .for("update");
    if (!current) throw new AppError("listing_not_found", `no listing ${listingId}`);
    const before = current.content;
    const content: ListingContentColumn = {
      route: input.route ?? before.route,
      category: input.category ?? before.category,
      title: input.title ?? before.title,
      description: input.description === undefined ? before.description : orNull(input.description),
      tier: input.tier ?? before.tier,
      method: input.method === undefined ? before.method : input.method,
      base_url: input.base_url === undefined ? before.base_url : input.base_url,
      input_schema: input.input_schema === undefined ? before.input_schema : input.input_schema,
      output_schema: input.output_schema === undefined ? before.output_schema : input.output_schema,
    };
    checkContent(owner, content, deps.env.developmentMode);
    const opened = await openRevision(tx, current, {
      content,
      with: await publishedWith(tx, owner.id),
      cause: "listing_edited",
      actor: { type: "merchant", id: owner.id },
      request,
      now: deps.clock.now(),
    });
    return opened.listing;
  });
}

/** Removes the listing and, with it, its public version. */
export async function deleteListing(
  deps: Pick<ListingServiceDeps, "db">,
  merchantId: string,
  listingId: string,
): Promise<void> {
  const deleted = await deps.db.db
    .delete(listings)
    .where(and(eq(listings.id, listingId), eq(listings.merchantId, merchantId)))
    .returning({ id: listings.id });
  if (deleted.length === 0) throw new AppError("listing_not_found", `no listing ${listingId}`);
}
