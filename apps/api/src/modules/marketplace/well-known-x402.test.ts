import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../test/harness";

/** The document's content against live 402s is tested in discovery-resources.test.ts (one set of chains). */
describe("GET /.well-known/x402", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi("pglite", { RATE_LIMIT_PUBLIC_PER_MINUTE: "3" });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: an empty marketplace is an empty, cacheable document", async () => {
    const response = await api.call("GET", "/.well-known/x402");
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ version: 1, resources: [], ownershipProofs: [] });
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("security: public-surface rate limit answers 429 problem+json", async () => {
    let last = await api.call("GET", "/.well-known/x402");
    for (let i = 0; i < 5 && last.status !== 429; i++) last = await api.call("GET", "/.well-known/x402");
    expect(last.status).toBe(429);
    expect(last.headers.get("content-type")).toContain("application/problem+json");
    // The same limiter guards the Bazaar catalogue.
    expect((await api.call("GET", "/discovery/resources")).status).toBe(429);
  });
});
