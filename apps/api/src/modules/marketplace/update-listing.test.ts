import { listings } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { decide, newListing, registerMerchant, signInOperator, type TestMerchant } from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))(
  "PATCH /v1/merchants/{id}/listings/{listing_id} on %s",
  (kind) => {
    let api: TestApi;
    let merchant: TestMerchant;
    let operator: { headers: Record<string, string>; id: string };
    beforeAll(async () => {
      api = await startTestApi(kind);
      merchant = await registerMerchant(api);
      operator = await signInOperator(api);
    });
    afterAll(async () => {
      await api?.close();
    });

    const patch = (id: string, body: unknown, owner = merchant, secret = owner.secret) =>
      api.call("PATCH", `/v1/merchants/${owner.id}/listings/${id}`, { headers: bearer(secret), body });
    const stored = async (id: string) =>
      (await api.deps.db.db.select().from(listings).where(eq(listings.id, id)))[0];

    describe("happy", () => {
      it("changes only the fields sent; null clears optional ones; a new pending revision", async () => {
        const id = await newListing(api, merchant, { method: "GET", description: "Old" });
        const response = await patch(id, {
          title: "New title",
          description: null,
          method: null,
          category: "data",
        });
        expect(response.status, response.text).toBe(200);
        expect(response.json).toMatchObject({
          status: "pending",
          revision: 2,
          title: "New title",
          description: null,
          method: null,
          category: "data",
          route: "/v1/search",
          tier: "standard",
        });
      });

      it("editing an approved listing keeps the approved version public while the edit waits", async () => {
        const id = await newListing(api, merchant, { route: "/approved", title: "Live title" });
        expect((await decide(api, operator, id, "approve")).status).toBe(200);
        const response = await patch(id, { title: "Draft title" });
        expect(response.json).toMatchObject({
          status: "approved",
          title: "Draft title",
          published: { title: "Live title", route: "/approved" },
          live_revision: { number: 1, status: "approved", title: "Live title" },
          pending_revision: { number: 2, status: "pending", cause: "listing_edited", title: "Draft title" },
        });
        expect((await stored(id))?.pendingRevisionId).toBe(
          (response.json.pending_revision as { id: string }).id,
        );
      });
    });

    describe("errors", () => {
      it.each([
        ["a title of 2", { title: "ab" }],
        ["a route with ..", { route: "/a/../b" }],
        ["a null title", { title: null }],
        ["a null route", { route: null }],
        ["a tier the merchant lacks", { tier: "gold" }],
        ["a reserved tier", { tier: "constructor" }],
        ["an unknown field", { status: "approved" }],
        ["a schema with __proto__", { input_schema: JSON.parse('{"__proto__":{"polluted":true}}') }],
      ])("refuses %s with 400 and changes nothing", async (_name, body) => {
        const id = await newListing(api, merchant, { route: "/unchanged" });
        const before = await stored(id);
        const response = await patch(id, body);
        expect(response.status, response.text).toBe(400);
        expect(response.json.code).toBe("validation_failed");
        expect(await stored(id)).toEqual(before);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        await api.call("DELETE", `/v1/merchants/${merchant.id}/listings/${id}`, {
          headers: bearer(merchant.secret),
        });
      });

      it("an unknown listing is 404", async () => {
        expect((await patch("lst_1111111111111111", { title: "Whatever" })).status).toBe(404);
      });
    });

    describe("security", () => {
      it("another merchant's listing is 404 and unchanged", async () => {
        const other = await registerMerchant(api);
        const theirs = await newListing(api, other);
        const response = await api.call("PATCH", `/v1/merchants/${merchant.id}/listings/${theirs}`, {
          headers: bearer(merchant.secret),
          body: { title: "Hijacked" },
        });
        expect(response.status).toBe(404);
        expect((await stored(theirs))?.content.title).toBe("Web search");
      });
    });
  },
);
