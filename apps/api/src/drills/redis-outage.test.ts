/**
 * Drill: Redis disappears and returns. A throwaway `redis-server` on a free port is SIGKILLed under a
 * running API and started again on the same port. What must hold (docs/operations.md, "Redis is down"):
 * - single use fails closed: identity-gate nonces answer 503 `identity_store_unavailable` (a nonce that could not
 *   be stored could not be consumed once);
 * - operator sign-in fails closed: 503 `service_unavailable` (a per-process limiter would multiply attempts);
 * - public rate limits (here /v1/pay's) never open: they fall back to per-process memory and still answer 429;
 * - when Redis is back, nonces and sign-in work again without a restart.
 * Bridge claims (503 `bridge_store_unavailable`) are drilled in src/modules/bridge/*.test.ts; gate quotas in
 * packages/gate.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "@tollgate/shared/test-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdmin } from "../modules/operators";
import { startTestApi, type TestApi } from "../test/harness";

const REDIS_SERVER = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((p) => existsSync(p));
if (!REDIS_SERVER) console.log("Redis outage drill skipped: no redis-server binary");

async function until(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!REDIS_SERVER)("drill: Redis disappears and returns", () => {
  let port: number;
  let server: ChildProcess | undefined;
  let api: TestApi;
  const email = "drill-redis@example.com";
  const password = "correct horse battery staple";

  const startRedis = async () => {
    server = spawn(
      REDIS_SERVER!,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
  };
  const stopRedis = async () => {
    const exited = new Promise((resolve) => server?.once("exit", resolve));
    server?.kill("SIGKILL");
    await exited;
    server = undefined;
  };
  const login = () => api.call("POST", "/api/admin/login", { body: { email, password, session: "bearer" } });
  const nonce = () => api.call("GET", "/nonce");

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    api = await startTestApi("pglite", {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      RATE_LIMIT_PAYS_PER_MINUTE: "3",
    });
    await until(() => api.deps.redis?.status === "ready", "Redis to be ready");
    await createAdmin(
      api.deps.db.db,
      { email, password, role: "viewer" },
      { now: new Date(), actor: { type: "system", id: "test" } },
    );
  });
  afterAll(async () => {
    await api?.close();
    if (server) await stopRedis();
  });

  it("fails closed for nonces and sign-in, keeps rate limits, and recovers when Redis returns", async () => {
    expect((await nonce()).status).toBe(200);
    expect((await login()).status).toBe(200);

    await stopRedis();
    await until(() => api.deps.redis?.status !== "ready", "the API to see Redis gone");

    const refusedNonce = await nonce();
    expect(refusedNonce.status, refusedNonce.text).toBe(503);
    expect(refusedNonce.json.code).toBe("identity_store_unavailable");
    const refusedLogin = await login();
    expect(refusedLogin.status, refusedLogin.text).toBe(503);
    expect(refusedLogin.json.code).toBe("service_unavailable");
    expect(refusedLogin.json).not.toHaveProperty("token");

    // /v1/pay's limit (3 a minute here) still holds on the per-process fallback: the 4th call is 429.
    const pays = [];
    for (let i = 0; i < 4; i++) pays.push(await api.call("POST", "/v1/pay", { body: {} }));
    expect(pays.slice(0, 3).map((p) => p.status)).not.toContain(429);
    expect(pays[3]!.status, pays[3]!.text).toBe(429);
    expect(pays[3]!.json.code).toBe("rate_limited");

    await startRedis();
    await until(() => api.deps.redis?.status === "ready", "the API to reconnect to Redis");
    expect((await nonce()).status).toBe(200);
    expect((await login()).status).toBe(200);
  });
});
