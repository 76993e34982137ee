import { listings } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { createListing, listingBody, newListing, registerMerchant } from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))(
  "DELETE /v1/merchants/{id}/listings/{listing_id} on %s",
  (kind) => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi(kind);
    });
    afterAll(async () => {
      await api?.close();
    });

    const stored = async (id: string) => api.deps.db.db.select().from(listings).where(eq(listings.id, id));

    it("happy: deletes the listing, which frees a place under the limit", async () => {
      const merchant = await registerMerchant(api);
      const ids: string[] = [];
      for (let index = 0; index < 10; index++)
        ids.push(await newListing(api, merchant, { route: `/d${index}` }));
      expect((await createListing(api, merchant, listingBody({ route: "/d10" }))).status).toBe(409);
      const response = await api.call("DELETE", `/v1/merchants/${merchant.id}/listings/${ids[0]}`, {
        headers: bearer(merchant.secret),
      });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ id: ids[0], deleted: true });
      expect(await stored(ids[0]!)).toHaveLength(0);
      expect((await createListing(api, merchant, listingBody({ route: "/d10" }))).status).toBe(201);
    });

    it("error: deleting twice is 404 the second time", async () => {
      const merchant = await registerMerchant(api);
      const id = await newListing(api, merchant);
      const del = () =>
        api.call("DELETE", `/v1/merchants/${merchant.id}/listings/${id}`, {
          headers: bearer(merchant.secret),
        });
      expect((await del()).status).toBe(200);
      const again = await del();
      expect(again.status).toBe(404);
      expect(again.json.code).toBe("listing_not_found");
    });

    it("security: another merchant's listing is 404 and stays", async () => {
      const merchant = await registerMerchant(api);
      const other = await registerMerchant(api);
      const theirs = await newListing(api, other);
      const response = await api.call("DELETE", `/v1/merchants/${merchant.id}/listings/${theirs}`, {
        headers: bearer(merchant.secret),
      });
      expect(response.status).toBe(404);
      expect(await stored(theirs)).toHaveLength(1);
      expect((await api.call("DELETE", `/v1/merchants/${other.id}/listings/${theirs}`)).status).toBe(401);
    });
  },
);
