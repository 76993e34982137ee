import { auditEvents, listings, webhookEvents } from "@tollgate/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { decide, newListing, registerMerchant, signInOperator, type TestMerchant } from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))("POST /admin/api/marketplace/{id}/reject on %s", (kind) => {
  let api: TestApi;
  let merchant: TestMerchant;
  let operator: { headers: Record<string, string>; id: string };
  beforeAll(async () => {
    api = await startTestApi(kind);
    merchant = await registerMerchant(api, undefined, { webhooks: true });
    operator = await signInOperator(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  const row = async (id: string) =>
    (await api.deps.db.db.select().from(listings).where(eq(listings.id, id)))[0];
  /** Decisions only: each merchant edit is audited too, as `listing.revision.created`. */
  const auditFor = async (id: string) =>
    (
      await api.deps.db.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetType, "listing"), eq(auditEvents.targetId, id)))
    ).filter((event) => event.action !== "listing.revision.created");
  const merchantView = async (id: string) =>
    (
      await api.call("GET", `/v1/merchants/${merchant.id}/listings/${id}`, {
        headers: bearer(merchant.secret),
      })
    ).json;

  describe("happy", () => {
    it("rejects with a reason the merchant sees; audited; listing.rejected enqueued; nothing public", async () => {
      const id = await newListing(api, merchant);
      const rejected = await decide(api, operator, id, "reject", { reason: "  Route answers 404  " });
      expect(rejected.status, rejected.text).toBe(200);
      expect(rejected.json).toMatchObject({
        status: "rejected",
        rejection_reason: "Route answers 404",
        published: null,
      });
      expect(await merchantView(id)).toMatchObject({
        status: "rejected",
        rejection_reason: "Route answers 404",
      });
      const audit = await auditFor(id);
      expect(audit.map((a) => a.action)).toEqual(["listing.rejected"]);
      expect(audit[0]?.details).toMatchObject({ reason: "Route answers 404" });
      const events = (
        await api.deps.db.db.select().from(webhookEvents).where(eq(webhookEvents.merchantId, merchant.id))
      ).filter((e) => e.payload.listing_id === id);
      expect(events.map((e) => [e.type, e.payload.reason])).toEqual([
        ["listing.rejected", "Route answers 404"],
      ]);
    });

    it("a rejected listing edited by its merchant goes back to pending and can then be approved", async () => {
      const id = await newListing(api, merchant, { route: "/again" });
      expect((await decide(api, operator, id, "reject")).status).toBe(200);
      const edited = await api.call("PATCH", `/v1/merchants/${merchant.id}/listings/${id}`, {
        headers: bearer(merchant.secret),
        body: { title: "Fixed title" },
      });
      expect(edited.json).toMatchObject({ status: "pending", revision: 2, rejection_reason: null });
      expect((await decide(api, operator, id, "approve")).json).toMatchObject({
        status: "approved",
        published: { title: "Fixed title" },
      });
    });

    it("HTML in the reason is stored as text", async () => {
      const id = await newListing(api, merchant, { route: "/html" });
      const reason = "<b>no</b><script>x()</script>";
      expect((await decide(api, operator, id, "reject", { reason })).json.rejection_reason).toBe(reason);
    });
  });

  describe("errors", () => {
    it.each([
      ["no reason", {}],
      ["an empty reason", { reason: "   " }],
      ["a reason over 500", { reason: "a".repeat(501) }],
      ["a reason with CR", { reason: "a\rb" }],
      ["a reason with NUL", { reason: "a\u0000b" }],
      ["an unknown field", { reason: "x", status: "approved" }],
    ])("refuses %s with 400 and leaves the listing pending", async (_name, body) => {
      const id = await newListing(api, merchant, { route: `/bad${Math.abs(JSON.stringify(body).length)}` });
      const response = await decide(api, operator, id, "reject", body);
      expect(response.status).toBe(400);
      expect(response.json.code).toBe("validation_failed");
      expect((await row(id))?.status).toBe("pending");
      expect(await auditFor(id)).toHaveLength(0);
      await api.call("DELETE", `/v1/merchants/${merchant.id}/listings/${id}`, {
        headers: bearer(merchant.secret),
      });
    });

    it("rejecting an approved listing answers 409", async () => {
      const id = await newListing(api, merchant, { route: "/done" });
      expect((await decide(api, operator, id, "approve")).status).toBe(200);
      const late = await decide(api, operator, id, "reject");
      expect(late.status).toBe(409);
      expect(late.json.code).toBe("listing_not_pending");
      expect((await row(id))?.status).toBe("approved");
    });
  });

  describe("security", () => {
    it("no session is 401 and a viewer 403", async () => {
      const id = await newListing(api, merchant, { route: "/sec" });
      expect(
        (await api.call("POST", `/admin/api/marketplace/${id}/reject`, { body: { reason: "x" } })).status,
      ).toBe(401);
      expect((await decide(api, await signInOperator(api, "viewer"), id, "reject")).status).toBe(403);
      expect((await row(id))?.status).toBe("pending");
    });
  });
});
