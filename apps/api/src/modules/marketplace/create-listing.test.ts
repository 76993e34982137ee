import { listings } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { createListing as createListingService } from "./listing-service";
import { createListing, listingBody, registerMerchant, type TestMerchant } from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))("POST /v1/merchants/{id}/listings on %s", (kind) => {
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(async () => {
    api = await startTestApi(kind);
    merchant = await registerMerchant(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  const storedFor = async (merchantId: string) =>
    api.deps.db.db.select().from(listings).where(eq(listings.merchantId, merchantId));

  describe("happy", () => {
    it("creates a pending listing with trimmed text and nothing public yet", async () => {
      const m = await registerMerchant(api);
      const created = await createListing(
        api,
        m,
        listingBody({
          title: "  Web search  ",
          description: " Line one\n\tLine two ",
          method: "POST",
          base_url: "https://api.acme.example",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
        }),
      );
      expect(created.status).toBe(201);
      expect(created.headers.get("cache-control")).toContain("no-store");
      expect(created.json).toMatchObject({
        status: "pending",
        revision: 1,
        route: "/v1/search",
        category: "search",
        title: "Web search",
        description: "Line one\n\tLine two",
        tier: "standard",
        method: "POST",
        base_url: "https://api.acme.example/",
        input_schema: { type: "object" },
        output_schema: null,
        rejection_reason: null,
        published: null,
      });
      expect(String(created.json.id)).toMatch(/^lst_[1-9A-HJ-NP-Za-km-z]+$/);
      const listed = await api.call("GET", `/v1/merchants/${m.id}/listings`, { headers: bearer(m.secret) });
      expect(listed.json.listings).toHaveLength(1);
    });

    it("accepts every category, a 200-character route, 3 and 80 character titles, emoji counted once", async () => {
      const m = await registerMerchant(api);
      const route = `/${"a".repeat(199)}`;
      for (const [index, category] of [
        "search",
        "inference",
        "compute",
        "data",
        "tools",
        "other",
      ].entries()) {
        const title = index % 2 === 0 ? "abc" : "🦊".repeat(80);
        const created = await createListing(api, m, listingBody({ category, title, route }));
        expect(created.status, created.text).toBe(201);
      }
    });

    it("stores HTML and script as plain text, unchanged", async () => {
      const m = await registerMerchant(api);
      const title = "<script>alert(1)</script>";
      const created = await createListing(
        api,
        m,
        listingBody({ title, description: '<img src=x onerror="x()">' }),
      );
      expect(created.status).toBe(201);
      expect(created.json.title).toBe(title);
      const [row] = await storedFor(m.id);
      expect(row?.content.title).toBe(title);
    });
  });

  describe("errors", () => {
    const refused: [string, Record<string, unknown>, string][] = [
      ["route missing", { route: undefined }, "route"],
      ["route without /", { route: "v1/search" }, "route"],
      ["route over 200", { route: `/${"a".repeat(200)}` }, "route"],
      ["route with ..", { route: "/v1/../admin" }, "route"],
      ["route with encoded ..", { route: "/v1/%2e%2E/admin" }, "route"],
      ["route with encoded /", { route: "/v1/a%2fb" }, "route"],
      ["route with a control character", { route: "/v1/\u0000x" }, "route"],
      ["route with a space", { route: "/v1/web search" }, "route"],
      ["route with a query", { route: "/v1/search?q=1" }, "route"],
      ["route protocol-relative", { route: "//evil.example/x" }, "route"],
      ["route with a broken escape", { route: "/v1/%zz" }, "route"],
      ["unknown category", { category: "games" }, "category"],
      ["title of 2", { title: " ab " }, "title"],
      ["title of 81", { title: "a".repeat(81) }, "title"],
      ["title with a newline", { title: "Web\nsearch" }, "title"],
      ["title with a lone surrogate", { title: "Web \ud800 search" }, "title"],
      ["description of 501", { description: "a".repeat(501) }, "description"],
      ["description with CR", { description: "a\r\nb" }, "description"],
      ["tier reserved", { tier: "constructor" }, "tier"],
      ["tier badly named", { tier: "Standard!" }, "tier"],
      ["tier the merchant lacks", { tier: "gold" }, "tier"],
      ["unknown method", { method: "TRACE" }, "method"],
      ["base_url private", { base_url: "https://10.0.0.1/api" }, "base_url"],
      ["base_url not https", { base_url: "http://api.acme.example" }, "base_url"],
      ["base_url with credentials", { base_url: "https://u:p@api.acme.example" }, "base_url"],
      ["schema not an object", { input_schema: [1, 2] }, "input_schema"],
      [
        "schema with __proto__",
        { input_schema: JSON.parse('{"properties":{"__proto__":{"type":"string"}}}') },
        "input_schema",
      ],
      ["schema with constructor", { output_schema: { properties: { constructor: {} } } }, "output_schema"],
      ["schema too big", { input_schema: { description: "x".repeat(9000) } }, "input_schema"],
      ["unknown field", { merchant_id: "mrch_x" }, "merchant_id"],
      ["status chosen by the client", { status: "approved" }, "status"],
    ];
    it.each(refused)("refuses %s with a 400 problem and stores nothing", async (_name, overrides, path) => {
      const body = listingBody(overrides);
      for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key];
      const response = await createListing(api, merchant, body);
      expect(response.status, response.text).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.json.code).toBe("validation_failed");
      const errors = response.json.errors as { path: string }[];
      expect(errors.map((e) => e.path)).toContain(path);
      expect(await storedFor(merchant.id)).toHaveLength(0);
    });

    it("the 11th listing answers 409 listing_limit_reached", async () => {
      const m = await registerMerchant(api);
      for (let index = 0; index < 10; index++) {
        expect((await createListing(api, m, listingBody({ route: `/r${index}` }))).status).toBe(201);
      }
      const eleventh = await createListing(api, m, listingBody({ route: "/r10" }));
      expect(eleventh.status).toBe(409);
      expect(eleventh.json.code).toBe("listing_limit_reached");
      expect(await storedFor(m.id)).toHaveLength(10);
    });

    it("11 parallel creations: exactly 10 succeed", async () => {
      const m = await registerMerchant(api);
      const results = await Promise.all(
        Array.from({ length: 11 }, (_, index) => createListing(api, m, listingBody({ route: `/p${index}` }))),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      expect(results.filter((r) => r.status === 409).map((r) => r.json.code)).toEqual([
        "listing_limit_reached",
      ]);
      expect(await storedFor(m.id)).toHaveLength(10);
    });
  });

  describe("security", () => {
    it("needs the merchant secret: none is 401, a wrong one 401", async () => {
      const none = await api.call("POST", `/v1/merchants/${merchant.id}/listings`, { body: listingBody() });
      expect(none.status).toBe(401);
      expect(none.json.code).toBe("merchant_auth_required");
      const wrong = await createListing(api, { ...merchant, secret: "msec_wrong" });
      expect(wrong.status).toBe(401);
      expect(await storedFor(merchant.id)).toHaveLength(0);
    });

    it("a merchant cannot create a listing for another merchant", async () => {
      const other = await registerMerchant(api);
      const response = await api.call("POST", `/v1/merchants/${other.id}/listings`, {
        headers: bearer(merchant.secret),
        body: listingBody(),
      });
      expect(response.status).toBe(403);
      expect(await storedFor(other.id)).toHaveLength(0);
    });

    it("http base URLs to loopback are refused outside development mode", async () => {
      const m = await registerMerchant(api);
      const owner = { id: m.id, tiers: { standard: 1_000n } };
      const input = { route: "/x", category: "data" as const, title: "Loop", tier: "standard" };
      const production = { db: api.deps.db, clock: api.deps.clock, env: { developmentMode: false } };
      await expect(
        createListingService(production, owner, { ...input, base_url: "http://127.0.0.1:9/x" }),
      ).rejects.toMatchObject({ code: "validation_failed" });
      const development = { ...production, env: { developmentMode: true } };
      await expect(
        createListingService(development, owner, { ...input, base_url: "http://127.0.0.1:9/x" }),
      ).resolves.toMatchObject({ status: "pending" });
      expect(await storedFor(m.id)).toHaveLength(1);
    });
  });
});
