import { auditEvents } from "@tollgate/db";
import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import { asc } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { createAdmin } from "./admin-accounts";

const PASSWORD = "correct horse battery staple";

function cookieOf(response: { headers: Headers }): string {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith("tollgate_admin="));
  if (!cookie) throw new Error("no session cookie set");
  return cookie.split(";")[0]!;
}

describe.each(testDatabaseKinds())("POST /api/admin/login and /logout, GET /api/admin/me on %s", (kind) => {
  let api: TestApi;
  let counter = 0;
  beforeAll(async () => {
    api = await startTestApi(kind, {
      LOGIN_CONSECUTIVE_FAILURES: "3",
      LOGIN_FAILURES_PER_IP_PER_DAY: "1000",
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function operator(role: "owner" | "operator" | "viewer" = "operator") {
    const email = `op${++counter}-${kind}@example.com`;
    await createAdmin(
      api.deps.db.db,
      { email, password: PASSWORD, role },
      { now: new Date(), actor: { type: "system", id: "test" } },
    );
    return email;
  }

  const login = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api.call("POST", "/api/admin/login", { body, headers });

  it("happy: signs in with an HttpOnly SameSite=Strict cookie, answers me, signs out server-side", async () => {
    const email = await operator();
    const signedIn = await login({ email: email.toUpperCase(), password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect(signedIn.json.admin).toMatchObject({ email, role: "operator" });
    expect(signedIn.json.token).toBeUndefined();
    const setCookie = signedIn.headers.getSetCookie().join("\n");
    expect(setCookie).toMatch(
      /tollgate_admin=ases_[1-9A-HJ-NP-Za-km-z]+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict/,
    );
    expect(setCookie).not.toMatch(/Secure/); // development over http on loopback
    const cookie = cookieOf(signedIn);
    const me = await api.call("GET", "/api/admin/me", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ admin: { email, role: "operator" }, can_act: true });

    const out = await api.call("POST", "/api/admin/logout", {
      headers: { cookie, [ADMIN_CSRF_HEADER]: "1" },
    });
    expect(out.status).toBe(200);
    expect(out.json.signed_out).toBe(true);
    expect(out.headers.getSetCookie().join()).toMatch(/tollgate_admin=; .*Expires=Thu, 01 Jan 1970/);
    // Revoked server-side: the copied cookie is dead.
    const after = await api.call("GET", "/api/admin/me", { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.json.code).toBe("admin_auth_required");
    const again = await api.call("POST", "/api/admin/logout", {
      headers: { cookie, [ADMIN_CSRF_HEADER]: "1" },
    });
    expect(again.json.signed_out).toBe(false);
  });

  it("bearer sessions for tools: the token comes in the body, no cookie", async () => {
    const email = await operator("viewer");
    const signedIn = await login({ email, password: PASSWORD, session: "bearer" });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.getSetCookie()).toEqual([]);
    const token = String(signedIn.json.token);
    expect(token).toMatch(/^ases_/);
    const me = await api.call("GET", "/api/admin/me", { headers: { authorization: `Bearer ${token}` } });
    expect(me.json).toMatchObject({ admin: { role: "viewer" }, can_act: false });
  });

  it("a new session at every login; a cookie held before signing in is revoked (no fixation)", async () => {
    const email = await operator();
    const first = cookieOf(await login({ email, password: PASSWORD }));
    const second = cookieOf(await login({ email, password: PASSWORD }, { cookie: first }));
    expect(second).not.toBe(first);
    expect((await api.call("GET", "/api/admin/me", { headers: { cookie: first } })).status).toBe(401);
    expect((await api.call("GET", "/api/admin/me", { headers: { cookie: second } })).status).toBe(200);
  });

  it("error: a wrong password and an unknown email look the same", async () => {
    const email = await operator();
    const wrong = await login({ email, password: "not the password" });
    const unknown = await login({ email: `nobody-${kind}@example.com`, password: "not the password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const strip = (json: Record<string, unknown>) => ({ ...json, request_id: undefined });
    expect(strip(wrong.json)).toEqual(strip(unknown.json));
    expect(wrong.json.code).toBe("invalid_credentials");
  });

  it("error: an unknown email costs a password verification too (same order of time as a known one)", async () => {
    const email = await operator();
    const time = async (body: Record<string, unknown>) => {
      const started = performance.now();
      await login(body);
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      known.push(await time({ email, password: `wrong-${i}` }));
      unknown.push(await time({ email: `ghost${i}-${kind}@example.com`, password: "wrong" }));
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    // Skipping the argon2id verification would make the unknown path ~10x faster; equal work keeps it near 1x.
    expect(median(unknown) / median(known)).toBeGreaterThan(0.3);
    await login({ email, password: PASSWORD }); // resets this pair's failure count
  });

  it("error: bad bodies are 4xx problem+json, nothing is stored", async () => {
    for (const body of [
      {},
      { email: "not-an-email", password: "x" },
      { email: "a@b.co", password: "" },
      { email: "a@b.co", password: "x", extra: 1 },
    ]) {
      const response = await login(body);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: consecutive failures for one email + address lock it (429 + Retry-After), even for the right password", async () => {
    const email = await operator();
    for (let i = 0; i < 3; i++) expect((await login({ email, password: "wrong" })).status).toBe(401);
    const fourth = await login({ email, password: "wrong" });
    expect(fourth.status).toBe(429);
    expect(fourth.json.code).toBe("login_locked");
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);
    const right = await login({ email, password: PASSWORD });
    expect(right.status).toBe(429);
    const actions = (await api.deps.db.db.select().from(auditEvents).orderBy(asc(auditEvents.seq)))
      .filter((row) => row.targetId === email)
      .map((row) => row.action);
    expect(actions).toEqual([
      "admin.login.failed",
      "admin.login.failed",
      "admin.login.failed",
      "admin.login.failed",
      "admin.login.lockout",
      "admin.login.refused_locked",
    ]);
  });

  it("security: a success resets the consecutive count", async () => {
    const email = await operator();
    for (let i = 0; i < 2; i++) await login({ email, password: "wrong" });
    expect((await login({ email, password: PASSWORD })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await login({ email, password: "wrong" })).status).toBe(401);
  });

  it("security: a cross-site origin cannot sign a browser in, or act with its cookie", async () => {
    const email = await operator();
    const evil = await login({ email, password: PASSWORD }, { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.json.code).toBe("csrf_check_failed");
    const cookie = cookieOf(await login({ email, password: PASSWORD }));
    const noHeader = await api.call("POST", "/api/admin/logout", { headers: { cookie } });
    expect(noHeader.status).toBe(403);
    const wrongOrigin = await api.call("POST", "/api/admin/logout", {
      headers: { cookie, origin: "https://evil.example", [ADMIN_CSRF_HEADER]: "1" },
    });
    expect(wrongOrigin.status).toBe(403);
    expect((await api.call("GET", "/api/admin/me", { headers: { cookie } })).status).toBe(200);
    const sameOrigin = await api.call("POST", "/api/admin/logout", {
      headers: { cookie, origin: api.baseUrl, [ADMIN_CSRF_HEADER]: "1" },
    });
    expect(sameOrigin.json.signed_out).toBe(true);
  });

  it("security: no session, a merchant secret, or a made-up token is 401", async () => {
    const merchant = await api.call("POST", "/v1/merchants", {
      body: { name: "Acme", pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" } },
    });
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${String(merchant.json.secret)}` },
      { authorization: "Bearer ases_1111111111111111111111111111111111111111111" },
      { cookie: "tollgate_admin=ases_1111111111111111111111111111111111111111111" },
      { cookie: "tollgate_admin=%zz; other=1" },
    ]) {
      const me = await api.call("GET", "/api/admin/me", { headers });
      expect(me.status).toBe(401);
      expect(me.json.code).toBe("admin_auth_required");
    }
  });
});

describe("admin sessions expire (injected clock)", () => {
  it("an idle session ends after the idle limit; use slides it up to the absolute limit", async () => {
    let now = Date.parse("2026-11-23T10:00:00Z");
    const api = await startTestApi(
      "pglite",
      { ADMIN_SESSION_IDLE_MINUTES: "30", ADMIN_SESSION_MAX_HOURS: "1" },
      { clock: { now: () => new Date(now) } },
    );
    try {
      await createAdmin(
        api.deps.db.db,
        { email: "clock@example.com", password: PASSWORD, role: "owner" },
        { now: new Date(now), actor: { type: "system" } },
      );
      const cookie = cookieOf(
        await api.call("POST", "/api/admin/login", {
          body: { email: "clock@example.com", password: PASSWORD },
        }),
      );
      const me = () => api.call("GET", "/api/admin/me", { headers: { cookie } });
      now += 25 * 60_000;
      expect((await me()).status).toBe(200); // slides idle expiry to 10:55
      now += 25 * 60_000;
      expect((await me()).status).toBe(200); // 10:50 < 10:55; slides to 11:00 (the absolute cap)
      now += 11 * 60_000;
      expect((await me()).status).toBe(401); // 11:01: past the absolute limit
      const other = cookieOf(
        await api.call("POST", "/api/admin/login", {
          body: { email: "clock@example.com", password: PASSWORD },
        }),
      );
      now += 31 * 60_000;
      expect((await api.call("GET", "/api/admin/me", { headers: { cookie: other } })).status).toBe(401);
    } finally {
      await api.close();
    }
  });
});
