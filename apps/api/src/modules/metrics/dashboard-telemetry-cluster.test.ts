import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, TEST_REDIS_URL, type TestApi } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { registerMerchant } from "../operators/testing";

interface Row {
  method?: string;
  route?: string;
  merchant_id?: string;
  requests: number;
  by_status_class: Record<string, number>;
  latency_ms: { p50: number | null; p99: number | null };
}
interface Answer {
  scope: string;
  process_id: string;
  routes: Row[];
  merchants: Row[];
}

const kind = storageDatabaseKinds("pglite")[0]!;

async function read(api: TestApi, viewer: SignedIn): Promise<Answer> {
  const response = await api.call("GET", "/api/dashboard/telemetry", { headers: { cookie: viewer.cookie } });
  expect(response.status, response.text).toBe(200);
  return response.json as unknown as Answer;
}
const meRow = (answer: Answer) =>
  answer.routes.find((row) => row.method === "GET" && row.route === "/v1/merchants/me");

describe("GET /api/dashboard/telemetry without Redis", () => {
  it("happy: the answering process's own figures, scope process", async () => {
    const api = await startTestApi(kind);
    try {
      expect(api.deps.telemetryShare).toBeUndefined();
      const viewer = await signInAs(api, "viewer");
      const merchant = await registerMerchant(api);
      await api.call("GET", "/v1/merchants/me", { headers: bearer(merchant.secret) });
      const answer = await read(api, viewer);
      expect(answer.scope).toBe("process");
      expect(meRow(answer)?.requests).toBe(1);
    } finally {
      await api.close();
    }
  });
});

describe.skipIf(!TEST_REDIS_URL)("GET /api/dashboard/telemetry with two API processes on one Redis", () => {
  let a: TestApi;
  let b: TestApi;
  let viewer: SignedIn;
  let env: Record<string, string>;
  beforeAll(async () => {
    // A key prefix of its own: other suites (and CI runs) share this Redis.
    env = {
      REDIS_URL: TEST_REDIS_URL ?? "",
      TELEMETRY_KEY_PREFIX: `test:telemetry:${process.pid}:${Date.now()}:`,
    };
    a = await startTestApi(kind, env);
    b = await startTestApi(kind, env, { db: a.deps.db });
    viewer = await signInAs(a, "viewer");
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("happy: after a flush, the dashboard of either process shows the sum of both", async () => {
    const merchant = await registerMerchant(a);
    for (const [api, times] of [
      [a, 2],
      [b, 3],
    ] as const) {
      for (let i = 0; i < times; i++) {
        const response = await api.call("GET", "/v1/merchants/me", { headers: bearer(merchant.secret) });
        expect(response.status).toBe(200);
      }
    }
    expect((await b.call("GET", "/v1/merchants/me", { headers: bearer("tg_sk_wrong") })).status).toBe(401);
    expect(await a.deps.telemetryShare!.flush()).toBe(true);
    expect(await b.deps.telemetryShare!.flush()).toBe(true);
    const fromA = await read(a, viewer);
    const fromB = await read(b, viewer);
    expect(fromA.process_id).not.toBe(fromB.process_id);
    for (const answer of [fromA, fromB]) {
      expect(answer.scope).toBe("cluster");
      expect(meRow(answer)).toMatchObject({
        requests: 6,
        by_status_class: expect.objectContaining({ "2xx": 5, "4xx": 1 }),
      });
      expect(meRow(answer)!.latency_ms.p50).toBeGreaterThan(0);
      expect(answer.merchants.find((row) => row.merchant_id === merchant.id)?.requests).toBe(5);
    }
    // Each process alone saw only its share.
    expect(a.deps.telemetry.read(15).routes.get("GET /v1/merchants/me")!.requests).toBe(2);
  });

  it("error: Redis unreadable → the answering process's own figures, said so; its deltas arrive later, once", async () => {
    const merchant = await registerMerchant(a);
    const redis = a.deps.redis!;
    const ended = new Promise((resolve) => redis.once("end", resolve));
    redis.disconnect();
    await ended;
    try {
      const served = await a.call("GET", "/v1/merchants/me", { headers: bearer(merchant.secret) });
      expect(served.status).toBe(200);
      expect(await a.deps.telemetryShare!.flush()).toBe(false);
      const answer = await read(a, viewer);
      expect(answer.scope).toBe("process");
      expect(meRow(answer)?.requests).toBe(3);
    } finally {
      await redis.connect();
    }
    // The deltas of the failed flushes reach Redis once it is back.
    expect(await a.deps.telemetryShare!.flush()).toBe(true);
    expect(await a.deps.telemetryShare!.flush()).toBe(true);
    const answer = await read(b, viewer);
    expect(answer.scope).toBe("cluster");
    expect(meRow(answer)?.requests).toBe(7);
  });

  it("happy: a process that shuts down flushes its last counts", async () => {
    const merchant = await registerMerchant(a);
    const c = await startTestApi(kind, env, { db: a.deps.db });
    try {
      const served = await c.call("GET", "/v1/merchants/me", { headers: bearer(merchant.secret) });
      expect(served.status).toBe(200);
    } finally {
      await c.close();
    }
    const answer = await read(a, viewer);
    expect(answer.merchants.find((row) => row.merchant_id === merchant.id)?.requests).toBe(1);
  });
});
