import { randomUUID } from "node:crypto";
import { auditEvents } from "@tollgate/db";
import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import { asc } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, TEST_REDIS_URL, type TestApi, testDatabaseKinds } from "../../test/harness";
import { createAdmin } from "./admin-accounts";

const PASSWORD = "correct horse battery staple";

function cookieOf(response: { headers: Headers }): string {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith("tollgate_admin="));
  if (!cookie) throw new Error("no session cookie set");
  return cookie.split(";")[0]!;
}

// The sign-in limiter runs in memory and, with TEST_REDIS_URL, in Redis (its own key prefix per run).
const limiterStores = ["memory", ...(TEST_REDIS_URL ? ["redis"] : [])] as const;
const suites = testDatabaseKinds().flatMap((kind) => limiterStores.map((store) => ({ kind, store })));

describe.each(suites)(
  "POST /api/admin/login and /logout, GET /api/admin/me on $kind, limiter in $store",
  ({ kind, store }) => {
    let api: TestApi;
    let counter = 0;
    // The limiter's waits are read from this clock: a test moves it past a Retry-After instead of sleeping.
    let now = Date.now();
    let addresses = 0;
    /** A client address of its own for each test, given through the trusted proxy's X-Forwarded-For. */
    const newClient = () => ({
      "x-forwarded-for": `198.51.${Math.floor(++addresses / 250)}.${addresses % 250}`,
    });
    beforeAll(async () => {
      api = await startTestApi(
        kind,
        {
          LOGIN_CONSECUTIVE_FAILURES: "3",
          LOGIN_FAILURES_PER_IP_PER_DAY: "20",
          LOGIN_BASE_DELAY_SECONDS: "2",
          LOGIN_MAX_DELAY_SECONDS: "60",
          TRUST_PROXY: "1",
          ...(store === "redis"
            ? { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: `test-${randomUUID()}:` }
            : {}),
        },
        { clock: { now: () => new Date(now) } },
      );
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

    const trailOf = async (targetId: string) =>
      (await api.deps.db.db.select().from(auditEvents).orderBy(asc(auditEvents.seq))).filter(
        (row) => row.targetId === targetId,
      );

    it("security: failures of one account from one client space its attempts out; the right password signs in after the wait", async () => {
      const email = await operator();
      const client = newClient();
      for (let i = 0; i < 4; i++)
        expect((await login({ email, password: "wrong" }, client)).status).toBe(401);
      // The fourth failure was evaluated and opened a wait: the right password now waits too, but only waits.
      const waiting = await login({ email, password: PASSWORD }, client);
      expect(waiting.status).toBe(429);
      expect(waiting.json.code).toBe("login_locked");
      expect(waiting.headers.get("content-type")).toContain("application/problem+json");
      const retryAfter = Number(waiting.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Elsewhere the operator is not slowed at all.
      expect((await login({ email, password: PASSWORD }, newClient())).status).toBe(200);
      now += retryAfter * 1000;
      expect((await login({ email, password: PASSWORD }, client)).status).toBe(200);
      // The success reset the account: three free failures again.
      for (let i = 0; i < 3; i++)
        expect((await login({ email, password: "wrong" }, client)).status).toBe(401);
      expect((await login({ email, password: PASSWORD }, client)).status).toBe(200);
    });

    it("security: a stranger's guesses at made-up emails never lock the owner out: a bounded wait, then the right password works", async () => {
      const email = await operator("owner");
      const client = newClient();
      for (let i = 0; i < 21; i++) {
        const guess = await login(
          { email: `ghost${i}-${randomUUID()}@example.com`, password: "wrong" },
          client,
        );
        expect(guess.status).toBe(401);
      }
      const waiting = await login({ email, password: PASSWORD }, client);
      expect(waiting.status).toBe(429);
      const retryAfter = Number(waiting.headers.get("retry-after"));
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await login({ email, password: PASSWORD }, newClient())).status).toBe(200);
      now += retryAfter * 1000;
      expect((await login({ email, password: PASSWORD }, client)).status).toBe(200);
    });

    it("security: refused attempts in one wait window write one row, and the window's count after it", async () => {
      const email = await operator();
      const client = newClient();
      for (let i = 0; i < 4; i++) await login({ email, password: "wrong" }, client);
      const before = (await trailOf(email)).length;
      let retryAfter = 0;
      for (let i = 0; i < 50; i++) {
        const refused = await login({ email, password: "wrong" }, client);
        expect(refused.status).toBe(429);
        retryAfter = Number(refused.headers.get("retry-after"));
      }
      const during = (await trailOf(email)).slice(before);
      expect(during.map((row) => row.action)).toEqual(["admin.login.refused"]);
      expect(during[0]?.details).toMatchObject({ limit: "account", refused: 1 });
      now += retryAfter * 1000;
      expect((await login({ email, password: PASSWORD }, client)).status).toBe(200);
      const after = (await trailOf(email)).slice(before);
      expect(after.map((row) => row.action)).toEqual(["admin.login.refused", "admin.login.refused_window"]);
      expect(after[1]?.details).toMatchObject({ limit: "account", refused: 50 });
    });

    it("security: 120 addresses of one IPv6 /64 are one client to the sign-in limiter", async () => {
      const email = await operator();
      const block = `2001:db8:${(++addresses).toString(16)}:7`;
      const statuses: number[] = [];
      for (let i = 1; i <= 120; i++) {
        const guess = await login(
          { email: `ghost${i}-${randomUUID()}@example.com`, password: "wrong" },
          { "x-forwarded-for": `${block}:${i.toString(16)}::${(i * 7).toString(16)}` },
        );
        statuses.push(guess.status);
      }
      // 20 free failures and the one that opens the wait are evaluated; everything after waits.
      expect(statuses.filter((status) => status === 401)).toHaveLength(21);
      expect(statuses.filter((status) => status === 429)).toHaveLength(99);
      const right = await login({ email, password: PASSWORD }, { "x-forwarded-for": `${block}::beef` });
      expect(right.status).toBe(429);
      // Another /64 is another client.
      expect(
        (await login({ email, password: PASSWORD }, { "x-forwarded-for": `2001:db8:ffff:1::1` })).status,
      ).toBe(200);
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
  },
);

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
