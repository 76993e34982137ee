/**
 * The merchant's deliveries list is index-backed (decision 0083): with sequential scans priced out, each query shape
 * the list runs (a page after a cursor in each direction, the totals under filters) must be planned on
 * webhook_deliveries_merchant_created_idx. A dropped or narrowed index makes the plan fall back and this fail.
 */
import type { DatabaseHandle } from "@tollgate/db";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";

describe.each(testDatabaseKinds())("merchant deliveries index on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await handle?.close();
  });

  async function plan(query: SQL): Promise<string> {
    return handle.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const result = (await tx.execute(sql`explain ${query}`)) as unknown;
      const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
      return rows.map((row) => Object.values(row as Record<string, string>).join(" ")).join("\n");
    });
  }

  const CURSOR = sql`('2026-01-01T00:00:00.000Z'::timestamptz, 5::bigint)`;
  const PAGE = sql`select d.*, e.type from webhook_deliveries d join webhook_events e on e.id = d.event_id`;
  it.each([
    [
      "newest first after a cursor, in a range",
      sql`${PAGE} where d.merchant_id = 'mrch_x' and d.created_at >= '2026-01-01T00:00:00Z' and d.created_at < '2026-02-01T00:00:00Z' and (d.created_at, d.id) < ${CURSOR} order by d.created_at desc, d.id desc limit 51`,
    ],
    [
      "oldest first after a cursor, under a status filter",
      sql`${PAGE} where d.merchant_id = 'mrch_x' and d.status = 'dead' and (d.created_at, d.id) > ${CURSOR} order by d.created_at, d.id limit 51`,
    ],
    [
      "the total in a range",
      sql`select count(*) from webhook_deliveries where merchant_id = 'mrch_x' and created_at >= '2026-01-01T00:00:00Z' and created_at < '2026-02-01T00:00:00Z'`,
    ],
    [
      "the total under a type filter",
      sql`select count(*) from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.merchant_id = 'mrch_x' and e.type = 'test.ping' and d.created_at >= '2026-01-01T00:00:00Z'`,
    ],
  ])("%s", async (name, query) => {
    const planned = await plan(query);
    expect(planned).toContain("webhook_deliveries_merchant_created_idx");
    // The page's order is the index's own: no sort step above it.
    if (name.includes("cursor")) expect(planned).not.toMatch(/\bSort\b/);
  });
});
