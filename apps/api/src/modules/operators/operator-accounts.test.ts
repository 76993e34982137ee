import { adminAccounts, auditEvents } from "@tollgate/db";
import { and, eq, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { createTestAdmin, type SignedIn, signInAs, TEST_PASSWORD } from "./admin-testing";

// Owner-only management of operator accounts (docs/decisions/0071-operator-actions-in-the-console.md).
describe.each(testDatabaseKinds())("/api/admin/operators/{id}/* on %s", (kind) => {
  let api: TestApi;
  let owner: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind);
    owner = await signInAs(api, "owner");
  });
  afterAll(async () => {
    await api?.close();
  });

  const act = (id: string, action: string, body: Record<string, unknown> = {}, headers = owner.acting) =>
    api.call("POST", `/api/admin/operators/${id}/${action}`, { headers, body });
  const me = (cookie: string) => api.call("GET", "/api/admin/me", { headers: { cookie } });
  const login = (email: string) =>
    api.call("POST", "/api/admin/login", { body: { email, password: TEST_PASSWORD } });
  const audit = (id: string, action: string) =>
    api.deps.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, id), eq(auditEvents.action, action)));
  /** Leaves `keep` as the only enabled owner (other suites' owners in this database are disabled directly). */
  const onlyOwner = (keep: string) =>
    api.deps.db.db
      .update(adminAccounts)
      .set({ disabledAt: new Date() })
      .where(and(eq(adminAccounts.role, "owner"), ne(adminAccounts.id, keep)));

  it("happy: the owner changes a role, audited; the operator's next request acts with the new role", async () => {
    const target = await signInAs(api, "operator");
    const changed = await act(target.id, "role", { role: "viewer" });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({ id: target.id, role: "viewer", disabled: false });
    expect((await me(target.cookie)).json).toMatchObject({ admin: { role: "viewer" }, can_act: false });
    const [event] = await audit(target.id, "admin.account.role_changed");
    expect(event).toMatchObject({
      actorId: owner.id,
      before: { role: "operator" },
      after: { role: "viewer" },
    });
  });

  it("disable: sessions end at once and sign-in is refused; enable lets it sign in again", async () => {
    const target = await signInAs(api, "operator");
    expect((await me(target.cookie)).status).toBe(200);
    const disabled = await act(target.id, "disable");
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.json.disabled).toBe(true);
    const after = await me(target.cookie);
    expect([after.status, after.json.code]).toEqual([401, "admin_auth_required"]);
    expect((await login(target.email)).status).toBe(401);
    expect((await audit(target.id, "admin.account.disabled"))[0]?.details).toEqual({ sessions_ended: 1 });
    const again = await act(target.id, "disable");
    expect([again.status, again.json.code]).toEqual([409, "conflict"]);

    expect((await act(target.id, "enable")).json.disabled).toBe(false);
    expect((await me(target.cookie)).status).toBe(401);
    expect((await login(target.email)).status).toBe(200);
  });

  it("revoke-sessions: every session of the account ends, the account stays usable", async () => {
    const target = await signInAs(api, "viewer");
    const second = await login(target.email);
    const secondCookie = second.headers.getSetCookie()[0]!.split(";")[0]!;
    const revoked = await act(target.id, "revoke-sessions");
    expect(revoked.json).toEqual({ id: target.id, sessions_ended: 2 });
    expect((await me(target.cookie)).status).toBe(401);
    expect((await me(secondCookie)).status).toBe(401);
    expect((await login(target.email)).status).toBe(200);
    expect(await audit(target.id, "admin.sessions.revoked")).toHaveLength(1);
  });

  it("refusals: operators and viewers 403, no CSRF proof 403, unknown 404, bad role 400", async () => {
    const operator = await signInAs(api, "operator");
    const viewer = await signInAs(api, "viewer");
    const { email } = await createTestAdmin(api, "viewer");
    const [target] = await api.deps.db.db.select().from(adminAccounts).where(eq(adminAccounts.email, email));
    for (const actor of [operator, viewer]) {
      for (const action of ["role", "disable", "enable", "revoke-sessions"]) {
        const refused = await act(
          target!.id,
          action,
          action === "role" ? { role: "owner" } : {},
          actor.acting,
        );
        expect([refused.status, refused.json.code], action).toEqual([403, "admin_role_forbidden"]);
      }
    }
    const noProof = await act(target!.id, "disable", {}, { cookie: owner.cookie });
    expect([noProof.status, noProof.json.code]).toEqual([403, "csrf_check_failed"]);
    const unknown = await act("adm_1111111111111111111111", "disable");
    expect([unknown.status, unknown.json.code]).toEqual([404, "admin_not_found"]);
    expect((await act(target!.id, "role", { role: "superuser" })).status).toBe(400);
    const [unchanged] = await api.deps.db.db
      .select()
      .from(adminAccounts)
      .where(eq(adminAccounts.id, target!.id));
    expect(unchanged).toMatchObject({ role: "viewer", disabledAt: null });
  });
  // Last: it disables every other owner of this database.
  it("the last enabled owner is never demoted or disabled: 409 last_owner_required, also under a race", async () => {
    const soleOwner = await signInAs(api, "owner");
    await onlyOwner(soleOwner.id);
    const demote = await act(soleOwner.id, "role", { role: "operator" }, soleOwner.acting);
    expect([demote.status, demote.json.code]).toEqual([409, "last_owner_required"]);
    expect(demote.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const disable = await act(soleOwner.id, "disable", {}, soleOwner.acting);
    expect([disable.status, disable.json.code]).toEqual([409, "last_owner_required"]);

    // Two owners: one demotes itself while disabling the other. One change wins; the other is refused, with 409
    // when it was checked under the lock, or 403 when its session already saw the demotion.
    const other = await signInAs(api, "owner");
    const [a, b] = await Promise.all([
      act(other.id, "role", { role: "viewer" }, other.acting),
      act(soleOwner.id, "disable", {}, other.acting),
    ]);
    expect([a.status, b.status].filter((status) => status === 200)).toHaveLength(1);
    expect([a.status, b.status].filter((status) => status === 409 || status === 403)).toHaveLength(1);
    const owners = await api.deps.db.db
      .select()
      .from(adminAccounts)
      .where(and(eq(adminAccounts.role, "owner")));
    expect(owners.filter((row) => row.disabledAt === null)).toHaveLength(1);
  });
});
