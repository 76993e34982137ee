import { type Database, merchants } from "@tollgate/db";
import { eq } from "drizzle-orm";
import type { ListingRow } from "./listing-service";
import { type ListingWithRevisions, listingView, withRevisions } from "./listing-view";
import type { TModerationListingView } from "./marketplace-queue.types";

export function moderationView(row: ListingWithRevisions & { merchantName: string }): TModerationListingView {
  return {
    ...listingView(row),
    merchant_id: row.merchantId,
    merchant_name: row.merchantName,
    decided_at: row.decidedAt?.toISOString() ?? null,
    decided_by: row.decidedBy,
  };
}

/** The decided row with its revisions and its merchant's name, as the queue shows it. */
export async function decisionView(
  deps: { db: { db: Database } },
  row: ListingRow,
): Promise<TModerationListingView> {
  const [merchant] = await deps.db.db
    .select({ name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, row.merchantId));
  const [loaded] = await withRevisions(deps, [row]);
  return moderationView({ ...loaded!, merchantName: merchant?.name ?? "" });
}
