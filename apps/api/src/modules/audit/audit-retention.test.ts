import { auditCheckpoints, auditEvents, type DatabaseHandle } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { asc, eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";
import { checkpointHash } from "./audit-checkpoints";
import { exportAuditTrail, resolveAuditRange, verifyAuditExport, writeAuditExport } from "./audit-export";
import { AUDIT_GENESIS_HASH, type AuditEntry, recordAuditAlone } from "./audit-log";
import { pruneAuditTrail } from "./audit-prune";
import { verifyAuditChain } from "./audit-verify";

describe.each(testDatabaseKinds())("audit retention on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await handle?.close();
  });

  const now = new Date("2026-12-01T12:00:00.000Z");
  const owner = {
    actor: { type: "admin" as const, id: "adm_owner" },
    ip: "127.0.0.1",
    requestId: "req_prune",
  };
  const entry = (n: number): AuditEntry => ({
    actor: { type: "admin", id: "adm_x" },
    action: "merchant.updated",
    target: { type: "merchant", id: `mrch_${n}` },
    after: { n, nested: { b: 2, a: 1 } },
  });
  const seed = async (count: number, from = 0) => {
    for (let i = 0; i < count; i++) {
      await recordAuditAlone(handle.db, entry(from + i), new Date(Date.UTC(2026, 10, 1 + from + i)));
    }
    return handle.db.select().from(auditEvents).orderBy(asc(auditEvents.seq));
  };
  const exportText = async (cut: { throughSeq?: bigint; before?: Date }) => {
    let text = "";
    const { header, sha256 } = await exportAuditTrail(handle.db, cut, owner, now, (line) => {
      text += line;
    });
    return { text, header, sha256 };
  };
  const refusal = async (work: Promise<unknown>) => {
    const caught = await work.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(caught).toBeInstanceOf(AppError);
    return (caught as AppError).code;
  };
  /** Someone with direct database access turns the guards off. */
  const bypassTriggers = async () => {
    await handle.db.execute(sql`alter table audit_events disable trigger user`);
    await handle.db.execute(sql`alter table audit_checkpoints disable trigger user`);
  };

  it("exports a range as a file that verifies offline, and any edit to the file is caught", async () => {
    const rows = await seed(6);
    const { text, header, sha256 } = await exportText({ throughSeq: rows[3]!.seq });
    expect(header).toMatchObject({
      count: 4,
      first_seq: rows[0]!.seq.toString(),
      last_seq: rows[3]!.seq.toString(),
      first_prev_hash: AUDIT_GENESIS_HASH,
      last_hash: rows[3]!.hash,
      after_checkpoint: null,
    });
    expect(text.trimEnd().split("\n")).toHaveLength(5);
    expect(verifyAuditExport(text)).toEqual({ ok: true, header, sha256 });
    // The export is recorded in the trail.
    const [exported] = await handle.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "audit.exported"));
    expect(exported?.details).toMatchObject({ count: 4, sha256, last_hash: rows[3]!.hash });

    const forged = text.replace('"n":2', '"n":20');
    expect(forged).not.toBe(text);
    expect(verifyAuditExport(forged)).toMatchObject({ ok: false, line: 4, reason: "hash_mismatch" });
    const lines = text.split("\n");
    const dropped = [lines[0], lines[1], lines[3], lines[4], ""].join("\n");
    expect(verifyAuditExport(dropped)).toMatchObject({ ok: false, line: 3, reason: "prev_hash_mismatch" });
    const truncated = lines.slice(0, 4).concat("").join("\n");
    expect(verifyAuditExport(truncated)).toMatchObject({ ok: false, line: 1 });
  });

  it("cuts at a date before the first event at or after it", async () => {
    const rows = await seed(5);
    const range = await resolveAuditRange(handle.db, { before: rows[2]!.at }, now);
    expect(range.header.last_seq).toBe(rows[1]!.seq.toString());
    expect(await refusal(resolveAuditRange(handle.db, { before: new Date(now.getTime() + 1) }, now))).toBe(
      "audit_cut_in_future",
    );
    expect(await refusal(resolveAuditRange(handle.db, { before: rows[0]!.at }, now))).toBe("audit_cut_empty");
  });

  it("prunes behind a checkpoint; the trail verifies from its anchor and records the prune", async () => {
    const rows = await seed(6);
    const { header, sha256 } = await exportText({ throughSeq: rows[3]!.seq });
    const checkpoint = await pruneAuditTrail(
      handle.db,
      { throughSeq: rows[3]!.seq, exportSha256: sha256 },
      owner,
      now,
    );
    expect(checkpoint).toMatchObject({
      throughSeq: rows[3]!.seq,
      anchorHash: header.last_hash,
      fromHash: AUDIT_GENESIS_HASH,
      prunedCount: 4n,
      exportSha256: sha256,
      actorType: "admin",
      actorId: "adm_owner",
    });
    const left = await handle.db.select().from(auditEvents).orderBy(asc(auditEvents.seq));
    expect(left.map((row) => row.action)).toEqual([
      "merchant.updated",
      "merchant.updated",
      "audit.exported",
      "audit.pruned",
    ]);
    expect(left[0]!.prevHash).toBe(header.last_hash);
    expect(left.at(-1)).toMatchObject({
      actorType: "admin",
      actorId: "adm_owner",
      ip: "127.0.0.1",
      requestId: "req_prune",
      details: { checkpoint_id: checkpoint.id, checkpoint_hash: checkpoint.hash, pruned_count: 4 },
    });
    expect(await verifyAuditChain(handle.db)).toEqual({
      ok: true,
      checked: 4,
      head: left.at(-1)!.hash,
      checkpoint: {
        id: checkpoint.id,
        at: now.toISOString(),
        through_seq: rows[3]!.seq.toString(),
        anchor_hash: header.last_hash,
        pruned_count: 4,
        pruned_total: 4,
      },
    });

    // A second export starts at the anchor, and a second prune chains its checkpoint onto the first.
    const second = await exportText({});
    expect(second.header).toMatchObject({
      first_prev_hash: header.last_hash,
      after_checkpoint: checkpoint.id,
    });
    expect(verifyAuditExport(second.text).ok).toBe(true);
    const next = await pruneAuditTrail(
      handle.db,
      { throughSeq: BigInt(second.header.last_seq), exportSha256: second.sha256 },
      owner,
      now,
    );
    expect(next).toMatchObject({ prevHash: checkpoint.hash, fromHash: header.last_hash, prunedCount: 4n });
    expect(await verifyAuditChain(handle.db)).toMatchObject({
      ok: true,
      checked: 2,
      checkpoint: { id: next.id, pruned_total: 8 },
    });
  });

  it("refuses a prune without a matching export, one that leaves nothing, one in the future, and an empty one", async () => {
    const rows = await seed(5);
    const { sha256 } = await exportText({ throughSeq: rows[2]!.seq });
    const prune = (throughSeq: bigint, exportSha256 = sha256) =>
      pruneAuditTrail(handle.db, { throughSeq, exportSha256 }, owner, now);
    expect(await refusal(prune(rows[2]!.seq, "0".repeat(64)))).toBe("audit_export_mismatch");
    // The export of a shorter or longer range is not this one's.
    expect(await refusal(prune(rows[3]!.seq))).toBe("audit_export_mismatch");
    expect(await refusal(prune(rows[1]!.seq))).toBe("audit_export_mismatch");
    const head = (await handle.db.select().from(auditEvents).orderBy(asc(auditEvents.seq))).at(-1)!;
    expect(await refusal(prune(head.seq))).toBe("audit_prune_leaves_nothing");
    expect(await refusal(prune(head.seq + 10n))).toBe("audit_cut_in_future");
    expect(await handle.db.select().from(auditCheckpoints)).toEqual([]);
    expect(await handle.db.$count(auditEvents)).toBe(6);
    await prune(rows[2]!.seq);
    // The same range again: nothing lies between the checkpoint and the cut.
    expect(await refusal(prune(rows[2]!.seq))).toBe("audit_cut_empty");
    expect((await verifyAuditChain(handle.db)).ok).toBe(true);
  });

  it("still refuses UPDATE, and DELETE of events no checkpoint covers; checkpoints are append-only", async () => {
    const rows = await seed(4);
    const { sha256 } = await exportText({ throughSeq: rows[1]!.seq });
    await pruneAuditTrail(handle.db, { throughSeq: rows[1]!.seq, exportSha256: sha256 }, owner, now);
    const message = async (statement: Promise<unknown>) => {
      const error = await statement.then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
      return String((error?.cause as Error | undefined)?.message ?? error?.message);
    };
    expect(await message(handle.db.delete(auditEvents).where(eq(auditEvents.id, rows[2]!.id)))).toMatch(
      /append-only/,
    );
    expect(await message(handle.db.update(auditEvents).set({ action: "x" }))).toMatch(/append-only/);
    expect(await message(handle.db.update(auditCheckpoints).set({ anchorHash: "f".repeat(64) }))).toMatch(
      /append-only/,
    );
    expect(await message(handle.db.delete(auditCheckpoints))).toMatch(/append-only/);
    expect(await message(handle.db.execute(sql`truncate audit_checkpoints`))).toMatch(/append-only/);
  });

  describe("tampering after a prune is detected", () => {
    const pruned = async () => {
      const rows = await seed(6);
      const { sha256 } = await exportText({ throughSeq: rows[2]!.seq });
      const checkpoint = await pruneAuditTrail(
        handle.db,
        { throughSeq: rows[2]!.seq, exportSha256: sha256 },
        owner,
        now,
      );
      expect((await verifyAuditChain(handle.db)).ok).toBe(true);
      await bypassTriggers();
      return { rows, checkpoint };
    };

    it("an edited remaining event", async () => {
      const { rows } = await pruned();
      await handle.db
        .update(auditEvents)
        .set({ after: { forged: true } })
        .where(eq(auditEvents.id, rows[4]!.id));
      expect(await verifyAuditChain(handle.db)).toMatchObject({
        ok: false,
        broken: { id: rows[4]!.id, reason: "hash_mismatch" },
      });
    });

    it("a deleted remaining event", async () => {
      const { rows } = await pruned();
      await handle.db.delete(auditEvents).where(eq(auditEvents.id, rows[3]!.id));
      expect(await verifyAuditChain(handle.db)).toMatchObject({
        ok: false,
        broken: { id: rows[4]!.id, reason: "prev_hash_mismatch" },
      });
    });

    it("a deleted checkpoint", async () => {
      const { rows } = await pruned();
      await handle.db.delete(auditCheckpoints);
      expect(await verifyAuditChain(handle.db)).toMatchObject({
        ok: false,
        broken: { id: rows[3]!.id, reason: "prev_hash_mismatch" },
      });
    });

    it("a changed anchor, and one re-hashed to look consistent", async () => {
      const { checkpoint } = await pruned();
      const anchorHash = "f".repeat(64);
      await handle.db.update(auditCheckpoints).set({ anchorHash });
      expect(await verifyAuditChain(handle.db)).toMatchObject({
        ok: false,
        broken: { id: checkpoint.id, reason: "checkpoint_mismatch" },
      });
      // Re-hashing the checkpoint does not help: the first remaining event does not chain from the new anchor.
      await handle.db
        .update(auditCheckpoints)
        .set({ hash: checkpointHash(checkpoint.prevHash, { ...checkpoint, anchorHash }) });
      expect(await verifyAuditChain(handle.db)).toMatchObject({
        ok: false,
        broken: { reason: "prev_hash_mismatch" },
      });
    });

    it("a checkpoint forged over deleted events without an audit.pruned event naming it", async () => {
      const { rows, checkpoint } = await pruned();
      // Cover two more events with a well-formed second checkpoint and delete them: every hash holds.
      const content = {
        ...checkpoint,
        id: "ackp_forged",
        throughSeq: rows[4]!.seq,
        anchorHash: rows[4]!.hash,
        fromHash: checkpoint.anchorHash,
        prunedCount: 2n,
      };
      const { seq: _seq, ...values } = content;
      await handle.db
        .insert(auditCheckpoints)
        .values({ ...values, prevHash: checkpoint.hash, hash: checkpointHash(checkpoint.hash, content) });
      await handle.db.delete(auditEvents).where(sql`${auditEvents.seq} <= ${rows[4]!.seq}`);
      expect(await verifyAuditChain(handle.db)).toMatchObject({
        ok: false,
        broken: { id: "ackp_forged", reason: "checkpoint_unrecorded" },
      });
    });
  });

  it("audit writes during a prune stay chained, and two prunes of one export do not both run", async () => {
    const rows = await seed(5);
    const { sha256 } = await exportText({ throughSeq: rows[2]!.seq });
    const request = { throughSeq: rows[2]!.seq, exportSha256: sha256 };
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => recordAuditAlone(handle.db, entry(100 + i), now)),
      pruneAuditTrail(handle.db, request, owner, now),
      pruneAuditTrail(handle.db, request, owner, now),
      ...Array.from({ length: 10 }, (_, i) => recordAuditAlone(handle.db, entry(200 + i), now)),
    ]);
    const failed = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(failed).toHaveLength(1);
    expect(((failed[0] as PromiseRejectedResult).reason as AppError).code).toBe("audit_cut_empty");
    expect(await handle.db.$count(auditCheckpoints)).toBe(1);
    // 5 seeded + the export - 3 pruned + 20 written + the prune's own event.
    expect(await verifyAuditChain(handle.db)).toMatchObject({ ok: true, checked: 5 + 1 - 3 + 20 + 1 });
  });

  it("writeAuditExport hashes exactly the bytes it writes", async () => {
    await seed(3);
    const range = await resolveAuditRange(handle.db, {}, now);
    let text = "";
    const sha256 = await writeAuditExport(handle.db, range, (line) => {
      text += line;
    });
    expect(verifyAuditExport(text)).toMatchObject({ ok: true, sha256 });
  });
});
