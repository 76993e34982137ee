/**
 * Seeds approved marketplace listings straight into a database (bench and feed tests): `count` listings, ten per
 * merchant (SPEC §8), each already approved and public. Not an API path: it skips review on purpose.
 */
import { randomBytes } from "node:crypto";
import {
  type Database,
  type ListingContentColumn,
  listingRevisions,
  listings,
  merchants,
} from "@tollgate/db";
import { LISTING_CATEGORIES, MAX_LISTINGS_PER_MERCHANT, newId } from "@tollgate/shared";

export async function seedApprovedListings(db: Database, count: number, now = new Date()): Promise<void> {
  const merchantRows: (typeof merchants.$inferInsert)[] = [];
  const listingRows: (typeof listings.$inferInsert)[] = [];
  const revisionRows: (typeof listingRevisions.$inferInsert)[] = [];
  for (let index = 0; index < count; index++) {
    if (index % MAX_LISTINGS_PER_MERCHANT === 0) {
      merchantRows.push({
        id: newId("merchant"),
        name: `Seeded Merchant ${merchantRows.length}`,
        secretHash: randomBytes(32).toString("hex"),
        payTo: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
        settlementVersion: "1.2",
        networkMode: "test",
        settlementChain: "amoy",
        createdAt: now,
        updatedAt: now,
        secretRotatedAt: now,
      });
    }
    const content: ListingContentColumn = {
      route: `/v1/seeded/${index}`,
      category: LISTING_CATEGORIES[index % LISTING_CATEGORIES.length]!,
      title: `Seeded listing ${index}`,
      description: `A seeded listing for load tests, number ${index}.`,
      tier: "standard",
      method: "GET",
      base_url: null,
      input_schema: null,
      output_schema: null,
    };
    const publishedAt = new Date(now.getTime() - index * 1000);
    const listingId = newId("listing");
    const revisionId = newId("listingRevision");
    revisionRows.push({
      id: revisionId,
      listingId,
      number: 1,
      status: "approved",
      cause: "listing_created",
      content,
      merchantName: merchantRows.at(-1)!.name,
      gateway: null,
      createdAt: publishedAt,
      decidedAt: publishedAt,
      decidedBy: "adm_seed",
    });
    listingRows.push({
      id: listingId,
      merchantId: merchantRows.at(-1)!.id,
      status: "approved",
      revision: 1,
      content,
      liveRevisionId: revisionId,
      publishedAt,
      decidedAt: publishedAt,
      decidedBy: "adm_seed",
      createdAt: publishedAt,
      updatedAt: publishedAt,
    });
  }
  for (let i = 0; i < merchantRows.length; i += 500)
    await db.insert(merchants).values(merchantRows.slice(i, i + 500));
  for (let i = 0; i < listingRows.length; i += 500)
    await db.insert(listings).values(listingRows.slice(i, i + 500));
  for (let i = 0; i < revisionRows.length; i += 500)
    await db.insert(listingRevisions).values(revisionRows.slice(i, i + 500));
}
