/**
 * The operator views' lookups are index-backed: with sequential scans priced out, each query shape the
 * services run must be planned on the index the `admin_read` migration (or an earlier one) added for it. A dropped
 * or mistyped index makes the plan fall back to a sequential scan and this test fail.
 */
import type { DatabaseHandle } from "@tollgate/db";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";

describe.each(testDatabaseKinds())("operator view indexes on %s", (kind) => {
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

  it.each([
    [
      "transactions by merchant, newest first",
      sql`select * from settlements where merchant_id = 'mrch_x' order by id desc limit 51`,
      "settlements_merchant_id_idx",
    ],
    [
      "transactions sorted by seen_at, after a cursor (decision 0072)",
      sql`select * from settlements where (seen_at, id) > ('2026-01-01T00:00:00Z'::timestamptz, 5::bigint) order by seen_at, id limit 51`,
      "settlements_seen_at_idx",
    ],
    [
      "merchants oldest first, after a cursor (decision 0072)",
      sql`select * from merchants where created_at > now() or (created_at = now() and id > 'mrch_x') order by created_at, id limit 26`,
      "merchants_created_idx",
    ],
    [
      "operator accounts newest first, after a cursor (decision 0077)",
      sql`select * from admin_accounts where (created_at, id) < (now(), 'adm_x') order by created_at desc, id desc limit 51`,
      "admin_accounts_created_idx",
    ],
    [
      "webhook endpoints by creation, after a cursor (decision 0077)",
      sql`select * from webhook_endpoints where (created_at, merchant_id) > (now(), 'mrch_x') order by created_at, merchant_id limit 51`,
      "webhook_endpoints_created_idx",
    ],
    [
      "search by transaction hash",
      sql`select * from settlements where tx_hash = '0xab'`,
      "settlements_tx_hash_idx",
    ],
    [
      "transactions in a time range",
      sql`select * from settlements where seen_at >= '2026-01-01T00:00:00Z'`,
      "settlements_seen_at_idx",
    ],
    [
      "an agent's settlements",
      sql`select * from settlements where payer = '0x00' order by id desc limit 10`,
      "settlements_payer_idx",
    ],
    [
      "a merchant's recent receipts",
      sql`select * from receipts where merchant_id = 'mrch_x' order by issued_at desc limit 10`,
      "receipts_merchant_idx",
    ],
    ["an agent's receipts", sql`select count(*) from receipts where payer = '0x00'`, "receipts_payer_idx"],
    [
      "receipts by transaction hash",
      sql`select * from receipts where tx_hash = '0xab'`,
      "receipts_tx_hash_idx",
    ],
    [
      "merchant name prefix",
      sql`select * from merchants where lower(name) like 'acm%'`,
      "merchants_name_prefix_idx",
    ],
    [
      "merchants newest first",
      sql`select * from merchants order by created_at desc, id desc limit 26`,
      "merchants_created_idx",
    ],
    [
      "audit by actor",
      sql`select * from audit_events where actor_type = 'admin' and actor_id = 'adm_x' order by at desc limit 20`,
      "audit_events_actor_idx",
    ],
  ])("%s", async (_name, query, index) => {
    expect(await plan(query)).toContain(index);
  });
});
