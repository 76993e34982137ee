import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { newListing, registerMerchant, type TestMerchant } from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))(
  "GET /v1/merchants/{id}/listings/{listing_id} on %s",
  (kind) => {
    let api: TestApi;
    let merchant: TestMerchant;
    let other: TestMerchant;
    beforeAll(async () => {
      api = await startTestApi(kind);
      merchant = await registerMerchant(api);
      other = await registerMerchant(api);
    });
    afterAll(async () => {
      await api?.close();
    });

    const get = (owner: TestMerchant, listingId: string, secret = owner.secret) =>
      api.call("GET", `/v1/merchants/${owner.id}/listings/${listingId}`, { headers: bearer(secret) });

    it("happy: the merchant reads its listing", async () => {
      const id = await newListing(api, merchant);
      const response = await get(merchant, id);
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ id, status: "pending", title: "Web search", published: null });
    });

    it("error: an unknown listing is 404, a malformed id 400", async () => {
      const unknown = await get(merchant, "lst_1111111111111111");
      expect(unknown.status).toBe(404);
      expect(unknown.json.code).toBe("listing_not_found");
      expect((await get(merchant, "lst_0OIl")).status).toBe(400);
    });

    it("security: another merchant's listing is 404, exactly like a missing one; no secret is 401", async () => {
      const theirs = await newListing(api, other);
      const response = await get(merchant, theirs);
      expect(response.status).toBe(404);
      expect(response.json.code).toBe("listing_not_found");
      expect(response.text).not.toContain(other.id);
      const crossPath = await api.call("GET", `/v1/merchants/${other.id}/listings/${theirs}`, {
        headers: bearer(merchant.secret),
      });
      expect(crossPath.status).toBe(403);
      expect((await api.call("GET", `/v1/merchants/${merchant.id}/listings/${theirs}`)).status).toBe(401);
    });
  },
);
