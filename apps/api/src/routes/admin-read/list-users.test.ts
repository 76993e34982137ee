import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerMerchant, signInAs } from "../../test/admin-fixtures";
import { bearer, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";

describe.each(testDatabaseKinds())("GET /admin/api/users on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await signInAs(api, "viewer");
    await signInAs(api, "owner");
    await signInAs(api, "operator");
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = viewer) =>
    api.call("GET", `/admin/api/users${query}`, { headers });

  it("happy: operator accounts oldest first, cursor pages, no password hashes", async () => {
    const first = await get("?limit=2");
    expect(first.status).toBe(200);
    expect((first.json.users as { role: string; kind: string }[]).map((u) => [u.role, u.kind])).toEqual([
      ["viewer", "admin"],
      ["owner", "admin"],
    ]);
    expect(first.text).not.toMatch(/argon2|password/);
    const second = await get(`?limit=2&cursor=${String(first.json.next_cursor)}`);
    expect((second.json.users as { role: string }[]).map((u) => u.role)).toEqual(["operator"]);
    expect(second.json.next_cursor).toBeNull();
  });

  it("error: bad limits and cursors are 400 problem+json", async () => {
    for (const query of [
      "?limit=0",
      "?cursor=abc",
      `?cursor=${Buffer.from('["1","mrch_x"]').toString("base64url")}`,
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session or a merchant secret is 401", async () => {
    const merchant = await registerMerchant(api);
    expect((await get("", {})).status).toBe(401);
    expect((await get("", bearer(merchant.secret))).status).toBe(401);
  });
});
