import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { newListing, registerMerchant } from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))("GET /v1/merchants/{id}/listings on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: the merchant's own listings, oldest first; none is an empty list", async () => {
    const merchant = await registerMerchant(api);
    const empty = await api.call("GET", `/v1/merchants/${merchant.id}/listings`, {
      headers: bearer(merchant.secret),
    });
    expect(empty.json).toEqual({ listings: [] });
    const first = await newListing(api, merchant, { route: "/one" });
    const second = await newListing(api, merchant, { route: "/two" });
    const listed = await api.call("GET", `/v1/merchants/${merchant.id}/listings`, {
      headers: bearer(merchant.secret),
    });
    expect(listed.status).toBe(200);
    expect((listed.json.listings as { id: string }[]).map((l) => l.id)).toEqual([first, second]);
  });

  it("error: a malformed merchant id is 400", async () => {
    const merchant = await registerMerchant(api);
    const response = await api.call("GET", "/v1/merchants/not-an-id/listings", {
      headers: bearer(merchant.secret),
    });
    expect(response.status).toBe(400);
  });

  it("security: another merchant's list is 403, none without a secret (401)", async () => {
    const merchant = await registerMerchant(api);
    const other = await registerMerchant(api);
    await newListing(api, other);
    const response = await api.call("GET", `/v1/merchants/${other.id}/listings`, {
      headers: bearer(merchant.secret),
    });
    expect(response.status).toBe(403);
    expect(response.text).not.toContain("lst_");
    expect((await api.call("GET", `/v1/merchants/${other.id}/listings`)).status).toBe(401);
  });
});
