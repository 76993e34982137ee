import { settlements } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorBearer, registerMerchant, settlementRow } from "../modules/operators/testing";
import { bearer, startTestApi, type TestApi, testDatabaseKinds } from "../test/harness";

/** The console polls its pages' reads with If-None-Match (decision 0073): the /trpc answers must honour it. */
describe.each(testDatabaseKinds())("conditional GET on /trpc on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let a: { id: string; secret: string };
  let b: { id: string; secret: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    a = await registerMerchant(api);
    b = await registerMerchant(api, { name: "Beta" });
  });
  afterAll(async () => {
    await api?.close();
  });

  const overview = (headers: Record<string, string> = {}) =>
    api.call("GET", "/trpc/adminRead.overview", { headers: { ...viewer, ...headers } });

  it("happy: an ETag on the answer; the same ETag back is 304 with no body, still no-store", async () => {
    const first = await overview();
    expect(first.status, first.text).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/"[\w-]{32}"$/);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const again = await overview({ "if-none-match": etag ?? "" });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("no-store");
    // A list of tags and the bare form match too (weak comparison, RFC 9110 §13.1.2).
    expect((await overview({ "if-none-match": `"other", ${etag?.slice(2)}` })).status).toBe(304);
  });

  it("a change in the data is a new ETag and a full answer", async () => {
    const before = await overview();
    await api.deps.db.db.insert(settlements).values(settlementRow(71, { state: "final" }));
    const after = await overview({ "if-none-match": before.headers.get("etag") ?? "" });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
    expect(after.text.length).toBeGreaterThan(0);
  });

  it("an answer stamped with the moment it was made still revalidates: the stamp is not part of the tag", async () => {
    const dashboard = (headers: Record<string, string> = {}) =>
      api.call("GET", `/trpc/merchant.dashboard?input=${encodeURIComponent(JSON.stringify({ days: 7 }))}`, {
        headers: { ...bearer(a.secret), ...headers },
      });
    const first = await dashboard();
    expect(first.status, first.text).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the window ends "now": a later now
    const again = await dashboard({ "if-none-match": first.headers.get("etag") ?? "" });
    expect(again.status).toBe(304);
  });

  it("security: one merchant's ETag never answers 304 for another's different data", async () => {
    const mine = await api.call("GET", "/trpc/merchant.me", { headers: bearer(a.secret) });
    expect(mine.status).toBe(200);
    const theirs = await api.call("GET", "/trpc/merchant.me", {
      headers: { ...bearer(b.secret), "if-none-match": mine.headers.get("etag") ?? "" },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.text).toContain(b.id);
    expect(theirs.text).not.toContain(a.id);
  });

  it("errors and writes carry no ETag: a 401 stays a 401 whatever If-None-Match says", async () => {
    const denied = await api.call("GET", "/trpc/adminRead.overview", { headers: { "if-none-match": "*" } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("etag")).toBeNull();
    const write = await api.call("POST", "/trpc/merchant.rotateSecret", {
      headers: { ...bearer(a.secret), "if-none-match": "*" },
      body: { id: a.id },
    });
    expect(write.status).toBe(200);
    expect(write.headers.get("etag")).toBeNull();
  });
});
