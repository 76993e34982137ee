import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { decide, newListing, registerMerchant, signInOperator } from "./listings-testing";

/** A clock the test moves by hand: the feed's 60 s cache is checked without waiting. */
function manualClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => (offset += ms) };
}

type Feed = { count: number; listings: Record<string, unknown>[]; next_cursor: string | null };

describe.each(storageDatabaseKinds("postgres"))("GET /api/network/marketplace on %s", (kind) => {
  let api: TestApi;
  const clock = manualClock();
  let operator: { headers: Record<string, string>; id: string };
  beforeAll(async () => {
    api = await startTestApi(kind, { RATE_LIMIT_PUBLIC_PER_MINUTE: "40" }, { clock });
    operator = await signInOperator(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  const feed = async (query = "", headers: Record<string, string> = {}) => {
    const response = await api.call("GET", `/api/network/marketplace${query}`, { headers });
    return { ...response, feed: response.json as unknown as Feed };
  };
  /** Moves past the cache lifetime so the next read sees the database. */
  const expireCache = () => clock.advance(61_000);

  it("happy: approved listings only, the public view without merchant ids, cached with an ETag and 304", async () => {
    const acme = await registerMerchant(api, "Acme <b>Search</b>");
    const approved = await newListing(api, acme, {
      route: "/v1/search",
      title: "<script>alert(1)</script>",
      description: "Finds things",
    });
    const rejected = await newListing(api, acme, { route: "/v1/rejected", title: "Rejected one" });
    await newListing(api, acme, { route: "/v1/pending", title: "Pending one" });
    expect((await decide(api, operator, approved, "approve")).status).toBe(200);
    expect((await decide(api, operator, rejected, "reject")).status).toBe(200);
    expireCache();

    const first = await feed();
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    expect(first.headers.get("content-type")).toMatch(/^application\/json/);
    expect(first.headers.get("x-content-type-options")).toBe("nosniff");
    expect(first.feed).toEqual({
      count: 1,
      listings: [
        {
          merchant_name: "Acme <b>Search</b>",
          route: "/v1/search",
          category: "search",
          title: "<script>alert(1)</script>",
          description: "Finds things",
        },
      ],
      next_cursor: null,
    });
    expect(first.text).not.toContain("mrch_");
    expect(first.text).not.toContain("lst_");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await feed("", { "if-none-match": etag! });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });

  it("a newly approved listing shows once the 60 s cache turns over, not before", async () => {
    const m = await registerMerchant(api);
    const id = await newListing(api, m, { route: "/fresh", title: "Fresh listing", category: "compute" });
    const before = (await feed("?category=compute")).feed;
    expect((await decide(api, operator, id, "approve")).status).toBe(200);
    expect((await feed("?category=compute")).feed).toEqual(before);
    expireCache();
    const after = (await feed("?category=compute")).feed;
    expect(after.listings.map((l) => l.title)).toContain("Fresh listing");
    expect(after.count).toBe(before.count + 1);
  });

  it("an edit to an approved listing waits: the approved version stays public; deletion removes it", async () => {
    const m = await registerMerchant(api);
    const id = await newListing(api, m, { route: "/edit", title: "Approved title", category: "inference" });
    expect((await decide(api, operator, id, "approve")).status).toBe(200);
    const edited = await api.call("PATCH", `/v1/merchants/${m.id}/listings/${id}`, {
      headers: bearer(m.secret),
      body: { title: "Unreviewed title" },
    });
    expect(edited.json).toMatchObject({
      status: "approved",
      pending_revision: { title: "Unreviewed title" },
      published: { title: "Approved title" },
    });
    expireCache();
    const titles = (await feed("?category=inference")).feed.listings.map((l) => l.title);
    expect(titles).toContain("Approved title");
    expect(titles).not.toContain("Unreviewed title");
    await api.call("DELETE", `/v1/merchants/${m.id}/listings/${id}`, { headers: bearer(m.secret) });
    expireCache();
    expect((await feed("?category=inference")).feed.listings.map((l) => l.title)).not.toContain(
      "Approved title",
    );
  });

  it("filters by category and q (literal, case-insensitive) and pages with a cursor", async () => {
    const m = await registerMerchant(api, "Paging Co");
    const ids: string[] = [];
    for (const index of [0, 1, 2]) {
      const id = await newListing(api, m, {
        route: `/page${index}`,
        title: `Tool 100%_${index}`,
        category: "tools",
      });
      ids.push(id);
      expect((await decide(api, operator, id, "approve")).status).toBe(200);
    }
    expireCache();
    const all = (await feed("?category=tools")).feed;
    expect(all.count).toBe(3);
    expect((await feed("?q=tool%20100%25_")).feed.count).toBe(3);
    expect((await feed("?q=100%25x")).feed.count).toBe(0);
    expect((await feed("?q=paging%20co")).feed.count).toBe(3);
    const first = (await feed("?category=tools&limit=2")).feed;
    expect(first.listings).toHaveLength(2);
    const second = (await feed(`?category=tools&limit=2&cursor=${first.next_cursor}`)).feed;
    expect(second.listings).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    expect([...first.listings, ...second.listings].map((l) => l.title).sort()).toEqual(
      all.listings.map((l) => l.title).sort(),
    );
  });

  it.each([
    ["an unknown category", "?category=games"],
    ["a non-canonical limit", "?limit=1e1"],
    ["a limit of 0", "?limit=0"],
    ["a repeated q", "?q=a&q=b"],
    ["q with a control character", "?q=a%00b"],
    ["a forged cursor", "?cursor=bm9wZQ"],
    ["an unknown parameter", "?merchant_id=mrch_1"],
    ["__proto__", "?__proto__=x"],
  ])("error: %s is a 400 problem", async (_name, query) => {
    const response = await feed(query);
    expect(response.status, response.text).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.json.code).toBe("validation_failed");
  });

  it("security: the public-surface limit answers 429 with Retry-After", async () => {
    let last = await feed();
    for (let index = 0; index < 45 && last.status !== 429; index++) last = await feed();
    expect(last.status).toBe(429);
    expect(last.json.code).toBe("rate_limited");
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
