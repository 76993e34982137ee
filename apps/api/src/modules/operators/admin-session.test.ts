import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { createTestAdmin, TEST_PASSWORD } from "./admin-testing";

describe.each(storageDatabaseKinds("pglite"))("GET /api/admin/session on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function signedInCookie(role: "operator" | "viewer"): Promise<{ cookie: string; email: string }> {
    const { email } = await createTestAdmin(api, role);
    const login = await api.call("POST", "/api/admin/login", {
      body: { email, password: TEST_PASSWORD, session: "cookie" },
    });
    expect(login.status, login.text).toBe(200);
    const line = login.headers.getSetCookie().find((value) => value.startsWith("tollgate_admin="));
    return { cookie: String(line).split(";")[0]!, email };
  }

  it("happy: a live session answers the operator, as /api/admin/me does", async () => {
    const { cookie, email } = await signedInCookie("viewer");
    const res = await api.call("GET", "/api/admin/session", { headers: { cookie } });
    expect(res.status).toBe(200);
    const me = await api.call("GET", "/api/admin/me", { headers: { cookie } });
    expect(res.json).toEqual({ signed_in: true, ...me.json });
    expect(res.json).toMatchObject({ admin: { email, role: "viewer" }, can_act: false });
  });

  it("error-free: no session, an unknown token or a revoked one are 200 signed_in false, never 401", async () => {
    const { cookie } = await signedInCookie("operator");
    const out = await api.call("POST", "/api/admin/logout", {
      headers: { cookie, [ADMIN_CSRF_HEADER]: "1" },
    });
    expect(out.status).toBe(200);
    const cases: Record<string, string>[] = [
      {},
      { cookie },
      { cookie: "tollgate_admin=ases_NotASessionAtAll1234567" },
      { authorization: "Bearer nonsense" },
    ];
    for (const headers of cases) {
      const res = await api.call("GET", "/api/admin/session", { headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.json).toEqual({ signed_in: false });
    }
    // /api/admin/me keeps refusing the same request.
    expect((await api.call("GET", "/api/admin/me", { headers: { cookie } })).status).toBe(401);
  });

  it("security: a merchant secret is no operator session", async () => {
    const merchant = await api.call("POST", "/v1/merchants", {
      body: {
        name: "Acme Search",
        pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
        network_mode: "test",
      },
    });
    const res = await api.call("GET", "/api/admin/session", {
      headers: { authorization: `Bearer ${String(merchant.json.secret)}` },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ signed_in: false });
  });
});
