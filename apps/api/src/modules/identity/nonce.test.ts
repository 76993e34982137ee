import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";

describe.each(storageDatabaseKinds("pglite"))("GET /nonce on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, { IDENTITY_NONCES_PER_MINUTE: "3" });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("issues distinct 60-second nonces, in the body and the headers", async () => {
    const first = await api.call("GET", "/nonce");
    const second = await api.call("GET", "/nonce");
    expect(first.status).toBe(200);
    expect(first.json["x-nonce"]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{16,22}$/);
    expect(first.headers.get("x-nonce")).toBe(first.json["x-nonce"]);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const expires = Date.parse(String(first.json["x-nonce-expires"]));
    expect(expires - Date.now()).toBeGreaterThan(50_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(60_000);
    expect(second.json["x-nonce"]).not.toBe(first.json["x-nonce"]);
  });

  it("rate-limits issuance per client (429 with Retry-After), so the store cannot be grown without limit", async () => {
    await api.call("GET", "/nonce");
    const limited = await api.call("GET", "/nonce");
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("answers 503 when the configured Redis is down, never falling back to memory", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const down = await startTestApi(kind, { REDIS_URL: `redis://127.0.0.1:${port}` }, { db: api.deps.db });
    try {
      const response = await down.call("GET", "/nonce");
      expect(response.status).toBe(503);
      expect(response.json.code).toBe("identity_store_unavailable");
      const gated = await down.call("GET", "/api/protocol-docs");
      expect(gated.status).toBe(503);
    } finally {
      await down.close();
    }
  }, 90_000);
});
