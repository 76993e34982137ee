import { auditEvents, type DatabaseHandle } from "@tollgate/db";
import { asc, eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";
import { AUDIT_GENESIS_HASH, recordAudit, recordAuditAlone } from "./audit-log";
import { verifyAuditChain } from "./audit-verify";

describe.each(testDatabaseKinds())("audit trail on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await handle?.close();
  });

  const at = new Date("2026-11-23T10:00:00.123Z");
  const entry = (action: string, n = 0) => ({
    actor: { type: "admin" as const, id: "adm_x" },
    action,
    target: { type: "merchant", id: `mrch_${n}` },
    ip: "127.0.0.1",
    requestId: "req_1",
    before: { name: "Old", nested: { b: 2, a: 1 } },
    after: { name: "New", amount: "1000000", big: 10n },
  });

  it("chains rows from the genesis and verifies them", async () => {
    for (let i = 0; i < 5; i++) await recordAuditAlone(handle.db, entry("merchant.updated", i), at);
    const rows = await handle.db.select().from(auditEvents).orderBy(asc(auditEvents.seq));
    expect(rows[0]?.prevHash).toBe(AUDIT_GENESIS_HASH);
    for (let i = 1; i < rows.length; i++) expect(rows[i]?.prevHash).toBe(rows[i - 1]?.hash);
    expect(rows[0]?.after).toEqual({ name: "New", amount: "1000000", big: "10" });
    const result = await verifyAuditChain(handle.db, 2);
    expect(result).toEqual({ ok: true, checked: 5, head: rows[4]?.hash, checkpoint: null });
  });

  it("refuses UPDATE, DELETE and TRUNCATE", async () => {
    await recordAuditAlone(handle.db, entry("a"), at);
    // drizzle wraps the database error; the trigger's message is its cause.
    const refusal = async (statement: Promise<unknown>) => {
      const error = await statement.then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
      return String((error?.cause as Error | undefined)?.message ?? error?.message);
    };
    expect(await refusal(handle.db.update(auditEvents).set({ action: "b" }))).toMatch(/append-only/);
    expect(await refusal(handle.db.delete(auditEvents))).toMatch(/append-only/);
    expect(await refusal(handle.db.execute(sql`truncate audit_events`))).toMatch(/append-only/);
    expect((await verifyAuditChain(handle.db)).ok).toBe(true);
  });

  it("reports the first edited row, and a deleted one, with the triggers bypassed", async () => {
    for (let i = 0; i < 4; i++) await recordAuditAlone(handle.db, entry("merchant.updated", i), at);
    const rows = await handle.db.select().from(auditEvents).orderBy(asc(auditEvents.seq));
    // Someone with direct database access disables the guard and edits history.
    await handle.db.execute(sql`alter table audit_events disable trigger user`);
    await handle.db
      .update(auditEvents)
      .set({ after: { name: "Forged" } })
      .where(eq(auditEvents.id, rows[1]!.id));
    expect(await verifyAuditChain(handle.db)).toMatchObject({
      ok: false,
      checked: 1,
      broken: { id: rows[1]?.id, reason: "hash_mismatch" },
    });
    await handle.db.update(auditEvents).set({ after: rows[1]!.after }).where(eq(auditEvents.id, rows[1]!.id));
    expect((await verifyAuditChain(handle.db)).ok).toBe(true);
    await handle.db.delete(auditEvents).where(eq(auditEvents.id, rows[2]!.id));
    expect(await verifyAuditChain(handle.db)).toMatchObject({
      ok: false,
      checked: 2,
      broken: { id: rows[3]?.id, reason: "prev_hash_mismatch" },
    });
  });

  it("is written in the transaction of the change: a rollback leaves no event", async () => {
    await expect(
      handle.db.transaction(async (tx) => {
        await recordAudit(tx, entry("merchant.updated"), at);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await handle.db.select().from(auditEvents)).toEqual([]);
  });

  it("parallel writers still form one valid chain", async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => recordAuditAlone(handle.db, entry("x", i), at)));
    expect(await verifyAuditChain(handle.db)).toMatchObject({ ok: true, checked: 20 });
  });
});
