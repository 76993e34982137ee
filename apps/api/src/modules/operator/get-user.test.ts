import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { operatorBearer, registerMerchant } from "../operators/testing";
import { type SignedInUser, signInUser } from "../users/testing";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/users/{id} on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let viewerId: string;
  let user: SignedInUser;
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    const me = await api.call("GET", "/api/admin/me", { headers: viewer });
    viewerId = String((me.json.admin as { id: string }).id);
    user = await signInUser(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: the account, its active sessions and its recent audited actions; no secrets", async () => {
    const res = await api.call("GET", `/admin/api/users/${viewerId}`, { headers: viewer });
    expect(res.status).toBe(200);
    expect(res.json.user).toMatchObject({ id: viewerId, role: "viewer", kind: "admin", disabled: false });
    expect(res.json.sessions).toMatchObject({ active: 1 });
    expect(
      (res.json.recent_actions as { actor: { id: string } }[]).every((e) => e.actor.id === viewerId),
    ).toBe(true);
    expect(res.text).not.toMatch(/argon2|token_hash|ases_/);
  });

  it("happy: a wallet account with its wallets, live sessions and last sign-in; no session token", async () => {
    const res = await api.call("GET", `/admin/api/users/${user.accountId}`, { headers: viewer });
    expect(res.status).toBe(200);
    expect(res.json.user).toMatchObject({ id: user.accountId, kind: "wallet", disabled: false });
    expect((res.json.user as { last_login_at: string | null }).last_login_at).not.toBeNull();
    expect((res.json.user as { wallets: unknown[] }).wallets).toEqual([
      expect.objectContaining({ kind: "evm", address: user.address.toLowerCase() }),
    ]);
    expect(res.json.sessions).toMatchObject({ active: 1 });
    expect(res.text).not.toContain(user.token);
    const out = await api.call("POST", "/api/user/logout", { headers: user.acting });
    expect(out.status).toBeLessThan(300);
    const after = await api.call("GET", `/admin/api/users/${user.accountId}`, { headers: viewer });
    expect(after.json.sessions).toMatchObject({ active: 0 });
  });

  it("error: an unknown id is 404, a malformed one 400", async () => {
    for (const unknown of ["adm_1111111111111111", "acct_1111111111111111"]) {
      const missing = await api.call("GET", `/admin/api/users/${unknown}`, { headers: viewer });
      expect(missing.status, unknown).toBe(404);
      expect(missing.json.code).toBe("not_found");
    }
    for (const bad of ["mrch_1111", "adm_0OIl", "acct_0OIl", "__proto__", "acct_"]) {
      const res = await api.call("GET", `/admin/api/users/${bad}`, { headers: viewer });
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    const merchant = await registerMerchant(api);
    expect((await api.call("GET", `/admin/api/users/${viewerId}`)).status).toBe(401);
    const res = await api.call("GET", `/admin/api/users/${viewerId}`, { headers: bearer(merchant.secret) });
    expect(res.status).toBe(401);
    const other = await signInUser(api);
    const own = await api.call("GET", `/admin/api/users/${other.accountId}`, { headers: other.headers });
    expect(own.status).toBe(401);
  });
});
