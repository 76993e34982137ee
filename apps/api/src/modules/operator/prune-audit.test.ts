import { auditCheckpoints, auditEvents } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { verifyAuditExport } from "../audit";
import { type SignedIn, signInAs } from "../operators/admin-testing";

describe.each(testDatabaseKinds())(
  "POST /api/admin/audit/export and /api/admin/audit/prune on %s",
  (kind) => {
    let api: TestApi;
    let owner: SignedIn;
    let operator: SignedIn;
    beforeAll(async () => {
      api = await startTestApi(kind);
      owner = await signInAs(api, "owner");
      operator = await signInAs(api, "operator");
    });
    afterAll(async () => {
      await api?.close();
    });
    const exportTrail = (body: unknown, headers = owner.acting) =>
      api.call("POST", "/api/admin/audit/export", { body, headers });
    const prune = (body: unknown, headers = owner.acting) =>
      api.call("POST", "/api/admin/audit/prune", { body, headers });
    const problem = (response: Awaited<ReturnType<typeof prune>>) => ({
      status: response.status,
      type: response.headers.get("content-type")?.split(";")[0],
      code: response.json.code,
    });

    it("the owner exports, the file verifies offline, and the prune it allows is verified and audited", async () => {
      const exported = await exportTrail({});
      expect(exported.status, exported.text).toBe(200);
      const file = exported.json.file as string;
      const check = verifyAuditExport(file);
      expect(check).toMatchObject({ ok: true, sha256: exported.json.sha256, header: exported.json.header });
      const header = exported.json.header as { last_seq: string; last_hash: string; count: number };

      const mismatch = await prune({ through_seq: header.last_seq, export_sha256: "ab".repeat(32) });
      expect(problem(mismatch)).toEqual({
        status: 409,
        type: "application/problem+json",
        code: "audit_export_mismatch",
      });
      const head = (await api.deps.db.db.select().from(auditEvents).orderBy(asc(auditEvents.seq))).at(-1)!;
      expect(
        problem(await prune({ through_seq: head.seq.toString(), export_sha256: exported.json.sha256 })),
      ).toEqual({
        status: 409,
        type: "application/problem+json",
        code: "audit_prune_leaves_nothing",
      });

      const pruned = await prune({ through_seq: header.last_seq, export_sha256: exported.json.sha256 });
      expect(pruned.status, pruned.text).toBe(200);
      expect(pruned.json.checkpoint).toMatchObject({
        through_seq: header.last_seq,
        anchor_hash: header.last_hash,
        pruned_count: header.count,
        export_sha256: exported.json.sha256,
      });
      const checkpointId = (pruned.json.checkpoint as { id: string }).id;
      const [event] = await api.deps.db.db
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.action, "audit.pruned"));
      expect(event).toMatchObject({ actorType: "admin", actorId: owner.id, targetId: checkpointId });

      const verified = await api.call("GET", "/admin/api/audit?verify=1&limit=1", {
        headers: { cookie: owner.cookie },
      });
      expect(verified.json.verification).toMatchObject({
        ok: true,
        checkpoint: { id: checkpointId, anchor_hash: header.last_hash, pruned_total: header.count },
      });
    });

    it("refuses anyone but the owner, a cookie without the same-origin proof, and bad cuts", async () => {
      const viewer = await signInAs(api, "viewer");
      const body = { through_seq: "1", export_sha256: "ab".repeat(32) };
      for (const who of [operator, viewer]) {
        expect(problem(await exportTrail({}, who.acting))).toMatchObject({
          status: 403,
          code: "admin_role_forbidden",
        });
        expect(problem(await prune(body, who.acting))).toMatchObject({
          status: 403,
          code: "admin_role_forbidden",
        });
      }
      expect(problem(await prune(body, { cookie: owner.cookie }))).toMatchObject({
        status: 403,
        code: "csrf_check_failed",
      });
      expect(problem(await prune(body, {}))).toMatchObject({ status: 401, code: "admin_auth_required" });
      expect(problem(await prune({ through_seq: "x", export_sha256: "ab" }))).toMatchObject({
        status: 400,
        code: "validation_failed",
      });
      expect(problem(await exportTrail({ before: "2999-01-01T00:00:00Z" }))).toMatchObject({
        status: 422,
        code: "audit_cut_in_future",
      });
      expect(problem(await exportTrail({ through_seq: "999999999" }))).toMatchObject({
        status: 422,
        code: "audit_cut_in_future",
      });
      expect(problem(await exportTrail({ through_seq: "1", before: "2020-01-01T00:00:00Z" }))).toMatchObject({
        status: 400,
        code: "validation_failed",
      });
      // Nothing was pruned by any refused request.
      const checkpoints = await api.deps.db.db.select().from(auditCheckpoints);
      expect(checkpoints.length).toBeLessThanOrEqual(1);
    });
  },
);
