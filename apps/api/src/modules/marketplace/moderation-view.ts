import { type Database, merchants } from "@tollgate/db";
import { eq } from "drizzle-orm";
import type { ListingRow } from "./listing-service";
import { listingView } from "./listing-view";
import type { TModerationListingView } from "./marketplace-queue.types";

export function moderationView(row: ListingRow & { merchantName: string }): TModerationListingView {
  return {
    ...listingView(row),
    merchant_id: row.merchantId,
    merchant_name: row.merchantName,
    decided_at: row.decidedAt?.toISOString() ?? null,
    decided_by: row.decidedBy,
  };
}

/** The decided row with its merchant's name, as the queue shows it. */
export async function decisionView(
  deps: { db: { db: Database } },
  row: ListingRow,
): Promise<TModerationListingView> {
  const [merchant] = await deps.db.db
    .select({ name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, row.merchantId));
  return moderationView({ ...row, merchantName: merchant?.name ?? "" });
}
