/**
 * The merchant's receipts and settlements lists are index-backed (decision 0076): with sequential scans priced
 * out, each query shape the lists run (a page after a cursor in each sort, and the total under filters) must be
 * planned on the merchant's index. A dropped index makes the plan fall back to a sequential scan and this fail.
 */
import type { DatabaseHandle } from "@tollgate/db";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";

describe.each(testDatabaseKinds())("merchant list indexes on %s", (kind) => {
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

  const CURSOR_AT = sql`'2026-01-01T00:00:00.000Z'::timestamptz`;
  it.each([
    [
      "receipts newest first after a cursor, in a range",
      sql`select * from receipts where merchant_id = 'mrch_x' and issued_at >= '2026-01-01T00:00:00Z' and issued_at < '2026-02-01T00:00:00Z' and (issued_at, id) < (${CURSOR_AT}, 'rcpt_x') order by issued_at desc, id desc limit 51`,
      "receipts_merchant_idx",
    ],
    [
      "receipts total under a state and payer filter",
      sql`select count(*) from receipts where merchant_id = 'mrch_x' and state = 'valid' and payer = '0xab' and issued_at >= '2026-01-01T00:00:00Z'`,
      "receipts_",
    ],
    [
      "settlements by id after a cursor",
      sql`select * from settlements where merchant_id = 'mrch_x' and id < 500 order by id desc limit 51`,
      "settlements_merchant_id_idx",
    ],
    [
      "settlements by seen_at after a cursor, in a range",
      sql`select * from settlements where merchant_id = 'mrch_x' and seen_at >= '2026-01-01T00:00:00Z' and (seen_at, id) > (${CURSOR_AT}, 5::bigint) order by seen_at, id limit 51`,
      "settlements_merchant_seen_idx",
    ],
    [
      "settlements total in a range",
      sql`select count(*) from settlements where merchant_id = 'mrch_x' and seen_at >= '2026-01-01T00:00:00Z' and seen_at < '2026-02-01T00:00:00Z'`,
      "settlements_merchant_seen_idx",
    ],
  ])("%s", async (_name, query, index) => {
    expect(await plan(query)).toContain(index);
  });
});
