/**
 * Migration 0022's hand-written backfill (docs/decisions/0067-listing-revisions.md), run on rows as the code before
 * it wrote them: an approved listing gets its approved copy as the live revision, with the merchant name and
 * gateway route of the time; an approved listing with an edit waiting also gets that edit as its pending revision;
 * a listing never approved gets only its pending revision; a rejected one none. Re-applying changes nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, MIGRATIONS_FOLDER } from "./client";
import { gatewayRoutes, type ListingContentColumn, listingRevisions, listings, merchants } from "./schema";
import { createTestDatabase, testDatabaseKinds, testDatabaseServersFrom } from "./testing";

const servers = testDatabaseServersFrom(process.env);

/** The statements after `-- hand-written:` in the migration. */
function backfillStatements(): string[] {
  const text = readFileSync(join(MIGRATIONS_FOLDER, "0022_listing_revisions.sql"), "utf8");
  const marker = text.indexOf("-- hand-written:");
  expect(marker).toBeGreaterThan(0);
  return text
    .slice(marker)
    .split("--> statement-breakpoint")
    .map((statement) => statement.trim())
    .filter((statement) => /\b(insert|update)\b/i.test(statement));
}

const content = (title: string): ListingContentColumn => ({
  route: "/v1/x",
  category: "data",
  title,
  description: null,
  tier: "standard",
  method: null,
  base_url: null,
  input_schema: null,
  output_schema: null,
});

describe.each(testDatabaseKinds(servers))("migration 0022 backfill on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind, servers);
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("gives approved listings a live revision and waiting edits a pending one", async () => {
    const db = handle.db;
    const now = new Date("2026-11-01T00:00:00Z");
    await db.insert(merchants).values({
      id: "mrch_Backfill111111111",
      name: "Backfill Co",
      secretHash: "0".repeat(64),
      payTo: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
      settlementVersion: "1.2",
      networkMode: "test",
      settlementChain: "amoy",
      createdAt: now,
      updatedAt: now,
      secretRotatedAt: now,
    });
    await db.insert(gatewayRoutes).values({
      merchantId: "mrch_Backfill111111111",
      slug: "backfill",
      upstreamUrl: "https://api.example.com",
      tier: "standard",
      originSecret: "tgo_x",
      createdAt: now,
      updatedAt: now,
    });
    const legacy = (
      id: string,
      status: "pending" | "approved" | "rejected",
      revision: number,
      published: boolean,
    ) => ({
      id,
      merchantId: "mrch_Backfill111111111",
      status,
      revision,
      content: content(`${id} draft`),
      published: published ? content(`${id} approved`) : null,
      publishedCategory: published ? "data" : null,
      publishedAt: published ? now : null,
      decidedAt: now,
      decidedBy: "adm_x",
      createdAt: now,
      updatedAt: now,
    });
    await db
      .insert(listings)
      .values([
        legacy("lst_Approved1111111", "approved", 1, true),
        legacy("lst_Edited11111111", "pending", 3, true),
        legacy("lst_New11111111111", "pending", 1, false),
        legacy("lst_Rejected111111", "rejected", 1, false),
      ]);
    for (let round = 0; round < 2; round++) {
      for (const statement of backfillStatements()) await db.execute(sql.raw(statement));
    }

    const rows = await db.select().from(listings).orderBy(asc(listings.id));
    const revisions = await db.select().from(listingRevisions);
    const byId = new Map(revisions.map((r) => [r.id, r]));
    const state = Object.fromEntries(
      rows.map((row) => [
        row.id,
        {
          status: row.status,
          live: row.liveRevisionId ? byId.get(row.liveRevisionId) : undefined,
          pending: row.pendingRevisionId ? byId.get(row.pendingRevisionId) : undefined,
        },
      ]),
    );
    expect(revisions).toHaveLength(4);
    expect(state.lst_Approved1111111).toMatchObject({
      status: "approved",
      live: {
        number: 1,
        status: "approved",
        cause: "migrated",
        merchantName: "Backfill Co",
        gateway: { slug: "backfill", upstream_url: "https://api.example.com", tier: "standard" },
        content: { title: "lst_Approved1111111 approved" },
      },
      pending: undefined,
    });
    expect(state.lst_Edited11111111).toMatchObject({
      status: "approved",
      live: { number: 2, status: "approved", content: { title: "lst_Edited11111111 approved" } },
      pending: { number: 3, status: "pending", content: { title: "lst_Edited11111111 draft" } },
    });
    expect(state.lst_New11111111111).toMatchObject({
      status: "pending",
      live: undefined,
      pending: { number: 1, status: "pending" },
    });
    expect(state.lst_Rejected111111).toMatchObject({
      status: "rejected",
      live: undefined,
      pending: undefined,
    });
    for (const revision of revisions) expect(revision.id).toMatch(/^lrev_[1-9A-HJ-NP-Za-km-z]{32}$/);
    const [edited] = await db.select().from(listings).where(eq(listings.id, "lst_Edited11111111"));
    expect(edited?.revision).toBe(3);
  });
});
