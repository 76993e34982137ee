import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { decide, newListing, registerMerchant, signInOperator } from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/marketplace on %s", (kind) => {
  let api: TestApi;
  let operator: { headers: Record<string, string>; id: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    operator = await signInOperator(api, "viewer");
  });
  afterAll(async () => {
    await api?.close();
  });

  const queue = (query = "", headers = operator.headers) =>
    api.call("GET", `/admin/api/marketplace${query}`, { headers });

  it("happy: pending first by default, filters by status, category and merchant, pages with a cursor", async () => {
    const a = await registerMerchant(api);
    const b = await registerMerchant(api);
    const a1 = await newListing(api, a, { route: "/a1", category: "data" });
    const a2 = await newListing(api, a, { route: "/a2", category: "tools" });
    const b1 = await newListing(api, b, { route: "/b1", category: "data" });
    const admin = await signInOperator(api);
    expect((await decide(api, admin, a2, "approve")).status).toBe(200);

    const pending = await queue();
    expect(pending.status, pending.text).toBe(200);
    expect((pending.json.listings as { id: string }[]).map((l) => l.id)).toEqual([a1, b1]);
    expect(pending.json.listings).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: a1, merchant_id: a.id, merchant_name: a.name })]),
    );
    const approved = await queue("?status=approved");
    expect((approved.json.listings as { id: string }[]).map((l) => l.id)).toEqual([a2]);
    const data = await queue(`?category=data&merchant_id=${b.id}`);
    expect((data.json.listings as { id: string }[]).map((l) => l.id)).toEqual([b1]);

    const first = await queue("?limit=1");
    expect((first.json.listings as { id: string }[]).map((l) => l.id)).toEqual([a1]);
    const second = await queue(`?limit=1&cursor=${String(first.json.next_cursor)}`);
    expect((second.json.listings as { id: string }[]).map((l) => l.id)).toEqual([b1]);
    expect(second.json.next_cursor).toBeNull();
  });

  it.each([
    ["an unknown status", "?status=deleted"],
    ["an unknown category", "?category=games"],
    ["a malformed merchant id", "?merchant_id=abc"],
    ["a non-canonical limit", "?limit=0x10"],
    ["a limit over 100", "?limit=101"],
    ["a forged cursor", `?cursor=${Buffer.from("1:lst_x'; drop table listings").toString("base64url")}`],
    ["an unknown parameter", "?__proto__=1"],
  ])("error: refuses %s with 400", async (_name, query) => {
    const response = await queue(query);
    expect(response.status, response.text).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  });

  it("security: no session or a merchant secret is 401", async () => {
    const merchant = await registerMerchant(api);
    expect((await queue("", {})).status).toBe(401);
    expect((await queue("", bearer(merchant.secret))).status).toBe(401);
  });
});
