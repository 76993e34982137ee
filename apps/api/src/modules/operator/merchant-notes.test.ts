import { auditEvents } from "@tollgate/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { registerMerchant } from "../operators/testing";

// Internal notes on a merchant (docs/decisions/0071-operator-actions-in-the-console.md).
describe.each(testDatabaseKinds())("/admin/api/merchants/{id}/notes on %s", (kind) => {
  let api: TestApi;
  let operator: SignedIn;
  let owner: SignedIn;
  let viewer: SignedIn;
  let offset = 0;
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => new Date(Date.now() + offset) } });
    operator = await signInAs(api, "operator");
    owner = await signInAs(api, "owner");
    viewer = await signInAs(api, "viewer");
  });
  afterAll(async () => {
    await api?.close();
  });

  const add = (id: string, body: unknown, headers = operator.acting) =>
    api.call("POST", `/admin/api/merchants/${id}/notes`, { headers, body });
  const list = (id: string, headers: Record<string, string> = { cookie: viewer.cookie }) =>
    api.call("GET", `/admin/api/merchants/${id}/notes`, { headers });

  it("happy: notes listed newest first with author and time, audited, readable by a viewer", async () => {
    const merchant = await registerMerchant(api);
    const first = await add(merchant.id, { body: "  called the merchant, waiting for KYC docs  " });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({
      body: "called the merchant, waiting for KYC docs",
      author: { id: operator.id, email: operator.email },
    });
    offset += 1000;
    const second = await add(merchant.id, { body: "line one\nline two" }, owner.acting);
    expect(second.status, second.text).toBe(200);
    const listed = await list(merchant.id);
    expect(listed.status).toBe(200);
    const notes = listed.json.notes as { id: string; author: { email: string }; created_at: string }[];
    expect(notes.map((note) => note.id)).toEqual([second.json.id, first.json.id]);
    expect(notes[0]!.author.email).toBe(owner.email);
    expect(Date.parse(notes[0]!.created_at)).toBeGreaterThan(Date.parse(notes[1]!.created_at));
    const events = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, merchant.id), eq(auditEvents.action, "merchant.note.added")));
    expect(events.map((event) => event.actorId).sort()).toEqual([operator.id, owner.id].sort());
  });

  it("internal: no merchant surface shows a note", async () => {
    const merchant = await registerMerchant(api);
    expect((await add(merchant.id, { body: "secret-operator-remark-42" })).status).toBe(200);
    for (const path of ["/v1/merchants/me", `/v1/merchants/${merchant.id}`, "/trpc/merchant.dashboard"]) {
      const seen = await api.call("GET", path, { headers: bearer(merchant.secret) });
      expect(seen.text, path).not.toContain("secret-operator-remark-42");
    }
    const asMerchant = await api.call("GET", `/admin/api/merchants/${merchant.id}/notes`, {
      headers: bearer(merchant.secret),
    });
    expect([asMerchant.status, asMerchant.json.code]).toEqual([401, "admin_auth_required"]);
  });

  it("refusals: viewer 403, empty or over 2000 characters 400, unknown merchant 404, no CSRF proof 403", async () => {
    const merchant = await registerMerchant(api);
    const byViewer = await add(merchant.id, { body: "hello" }, viewer.acting);
    expect([byViewer.status, byViewer.json.code]).toEqual([403, "admin_role_forbidden"]);
    expect((await add(merchant.id, { body: "   " })).status).toBe(400);
    expect((await add(merchant.id, { body: "a".repeat(2001) })).status).toBe(400);
    expect((await add(merchant.id, { body: "a".repeat(2000) })).status).toBe(200);
    expect((await add(merchant.id, { body: "ok", extra: 1 })).status).toBe(400);
    const unknown = await add("mrch_1111111111111111111111", { body: "hello" });
    expect([unknown.status, unknown.json.code]).toEqual([404, "merchant_not_found"]);
    expect((await list("mrch_1111111111111111111111")).status).toBe(404);
    const noProof = await add(merchant.id, { body: "hello" }, { cookie: operator.cookie });
    expect([noProof.status, noProof.json.code]).toEqual([403, "csrf_check_failed"]);
    expect((await list(merchant.id)).json.notes).toHaveLength(1);
  });
});
