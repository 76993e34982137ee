import { adminInvitations, auditEvents } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { type SignedIn, signInAs } from "./admin-testing";

const PASSWORD = "a long invited passphrase";

// Operator invitations (docs/decisions/0071-operator-actions-in-the-console.md).
describe.each(testDatabaseKinds())("/api/admin/invitations on %s", (kind) => {
  let api: TestApi;
  let owner: SignedIn;
  let offsetMs = 0;
  let counter = 0;
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    owner = await signInAs(api, "owner");
  });
  afterAll(async () => {
    await api?.close();
  });

  const email = () => `invitee${++counter}-${Date.now()}@example.com`;
  const invite = (body: Record<string, unknown>, headers = owner.acting) =>
    api.call("POST", "/api/admin/invitations", { headers, body });
  const accept = (token: string, password = PASSWORD) =>
    api.call("POST", "/api/admin/invitations/accept", { body: { token, password } });
  const login = (address: string) =>
    api.call("POST", "/api/admin/login", { body: { email: address, password: PASSWORD } });

  it("happy: invite, listed as pending, accepted once with a password, signs in with the invited role", async () => {
    const address = email();
    const created = await invite({ email: address.toUpperCase(), role: "viewer" });
    expect(created.status, created.text).toBe(200);
    const token = String(created.json.token);
    expect(token).toMatch(/^ainvt_/);
    expect(created.json).toMatchObject({ email: address, role: "viewer", invited_by: owner.id });
    expect(Date.parse(String(created.json.expires_at)) - Date.now()).toBeGreaterThan(71 * 3600_000);
    const [row] = await api.deps.db.db
      .select()
      .from(adminInvitations)
      .where(eq(adminInvitations.id, String(created.json.id)));
    expect(JSON.stringify(row)).not.toContain(token);
    const listed = await api.call("GET", "/api/admin/invitations", { headers: { cookie: owner.cookie } });
    expect(listed.text).not.toContain(token);
    expect((listed.json.invitations as { id: string }[]).map((i) => i.id)).toContain(created.json.id);

    const accepted = await accept(token);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json.admin).toMatchObject({ email: address, role: "viewer", disabled: false });
    const signedIn = await login(address);
    expect(signedIn.status).toBe(200);
    expect(signedIn.json.admin).toMatchObject({ role: "viewer" });
    const again = await accept(token, "another long passphrase");
    expect([again.status, again.json.code]).toEqual([404, "invitation_invalid"]);
    const after = await api.call("GET", "/api/admin/invitations", { headers: { cookie: owner.cookie } });
    expect((after.json.invitations as { id: string }[]).map((i) => i.id)).not.toContain(created.json.id);
    const actions = (await api.deps.db.db.select().from(auditEvents)).map((event) => event.action);
    expect(actions).toEqual(expect.arrayContaining(["admin.invitation.created", "admin.account.created"]));
  });

  it("single use under a race: two accepts of one token, one account", async () => {
    const created = await invite({ email: email(), role: "operator" });
    const token = String(created.json.token);
    const [a, b] = await Promise.all([accept(token), accept(token, "a different passphrase!")]);
    expect([a.status, b.status].sort()).toEqual([200, 404]);
  });

  it("revoked, expired and unknown links are refused with one code", async () => {
    const revokedInvite = await invite({ email: email(), role: "operator" });
    const revoked = await api.call("POST", `/api/admin/invitations/${revokedInvite.json.id}/revoke`, {
      headers: owner.acting,
      body: {},
    });
    expect(revoked.status, revoked.text).toBe(200);
    expect((await accept(String(revokedInvite.json.token))).json.code).toBe("invitation_invalid");
    const twice = await api.call("POST", `/api/admin/invitations/${revokedInvite.json.id}/revoke`, {
      headers: owner.acting,
      body: {},
    });
    expect([twice.status, twice.json.code]).toEqual([404, "invitation_invalid"]);

    const expiring = await invite({ email: email(), role: "operator" });
    offsetMs += 72 * 3600_000 + 1000;
    const expired = await accept(String(expiring.json.token));
    expect([expired.status, expired.json.code]).toEqual([404, "invitation_invalid"]);
    offsetMs = 0;
    const unknown = await accept(`ainvt_${"1".repeat(44)}`);
    expect([unknown.status, unknown.json.code]).toEqual([404, "invitation_invalid"]);
    expect(unknown.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it("refusals: only the owner invites, lists and revokes; taken email 409; short password 400", async () => {
    const operator = await signInAs(api, "operator");
    const byOperator = await invite({ email: email(), role: "owner" }, operator.acting);
    expect([byOperator.status, byOperator.json.code]).toEqual([403, "admin_role_forbidden"]);
    const listByOperator = await api.call("GET", "/api/admin/invitations", {
      headers: { cookie: operator.cookie },
    });
    expect(listByOperator.status).toBe(403);
    const noProof = await invite({ email: email(), role: "viewer" }, { cookie: owner.cookie });
    expect([noProof.status, noProof.json.code]).toEqual([403, "csrf_check_failed"]);
    const taken = await invite({ email: operator.email, role: "viewer" });
    expect([taken.status, taken.json.code]).toEqual([409, "conflict"]);
    expect((await invite({ email: "not an email", role: "viewer" })).status).toBe(400);
    expect((await invite({ email: email(), role: "root" })).status).toBe(400);
    const created = await invite({ email: email(), role: "viewer" });
    const short = await accept(String(created.json.token), "short");
    expect(short.status).toBe(400);
    expect((await accept(String(created.json.token))).status).toBe(200);
  });
});
