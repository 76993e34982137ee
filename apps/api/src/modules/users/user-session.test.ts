import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";
import { operatorBearer } from "../operators/testing";
import { signInUser } from "./testing";

describe.each(storageDatabaseKinds("pglite"))("GET /api/user/me and POST /api/user/logout on %s", (kind) => {
  let api: TestApi;
  let now = new Date("2026-03-01T10:00:00Z");
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => now } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: the bearer token and the cookie both name the account and its wallets", async () => {
    const user = await signInUser(api);
    for (const headers of [user.headers, { cookie: user.cookie }]) {
      const me = await api.call("GET", "/api/user/me", { headers });
      expect(me.status, me.text).toBe(200);
      expect(me.json).toMatchObject({
        account_id: user.accountId,
        wallets: [{ kind: "evm", address: user.address.toLowerCase() }],
      });
    }
  });

  it("security: no session, a merchant secret or an operator session is 401 user_auth_required", async () => {
    const none = await api.call("GET", "/api/user/me");
    expect(none.status).toBe(401);
    expect(none.json.code).toBe("user_auth_required");
    expect(none.headers.get("www-authenticate")).toContain("tollgate-user");
    const merchant = await api.call("POST", "/v1/merchants", { body: registrationBody() });
    expect((await api.call("GET", "/api/user/me", { headers: bearer(merchant.json.secret) })).status).toBe(
      401,
    );
    const operator = await operatorBearer(api, "owner");
    // An operator's bearer session (ases_...) is not a user session.
    expect(operator.authorization).toMatch(/^Bearer ases_/);
    expect((await api.call("GET", "/api/user/me", { headers: operator })).status).toBe(401);
    expect((await api.call("GET", "/api/user/me", { headers: bearer("usr_notarealtoken123") })).status).toBe(
      401,
    );
  });

  it("security: logout revokes server-side; the same token is then 401", async () => {
    const user = await signInUser(api);
    const out = await api.call("POST", "/api/user/logout", { headers: user.headers });
    expect(out.status).toBe(200);
    expect(out.json.signed_out).toBe(true);
    expect(out.headers.getSetCookie().join()).toMatch(/tollgate_user=;/);
    const reuse = await api.call("GET", "/api/user/me", { headers: user.headers });
    expect(reuse.status).toBe(401);
    expect(reuse.json.code).toBe("user_auth_required");
    // The cookie carries the same token: it is dead too.
    expect((await api.call("GET", "/api/user/me", { headers: { cookie: user.cookie } })).status).toBe(401);
    const twice = await api.call("POST", "/api/user/logout", { headers: user.headers });
    expect(twice.json.signed_out).toBe(false);
  });

  it("security: signing out with the cookie needs the same-origin proof", async () => {
    const user = await signInUser(api);
    const bare = await api.call("POST", "/api/user/logout", { headers: { cookie: user.cookie } });
    expect(bare.status).toBe(403);
    expect(bare.json.code).toBe("csrf_check_failed");
    const foreign = await api.call("POST", "/api/user/logout", {
      headers: { ...user.acting, origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect((await api.call("GET", "/api/user/me", { headers: user.headers })).status).toBe(200);
    const out = await api.call("POST", "/api/user/logout", { headers: user.acting });
    expect(out.json.signed_out).toBe(true);
  });

  it("security: sessions end after the idle timeout and the absolute limit", async () => {
    const start = now;
    try {
      const idle = await signInUser(api);
      now = new Date(start.getTime() + 12 * 3_600_000 + 1000);
      expect((await api.call("GET", "/api/user/me", { headers: idle.headers })).status).toBe(401);
      now = start;
      const busy = await signInUser(api);
      // Used every 11 hours, the session slides on, up to the 7-day absolute limit.
      for (let hours = 11; hours < 168; hours += 11) {
        now = new Date(start.getTime() + hours * 3_600_000);
        expect((await api.call("GET", "/api/user/me", { headers: busy.headers })).status, `${hours} h`).toBe(
          200,
        );
      }
      now = new Date(start.getTime() + 168 * 3_600_000);
      expect((await api.call("GET", "/api/user/me", { headers: busy.headers })).status).toBe(401);
    } finally {
      now = start;
    }
  });
});
