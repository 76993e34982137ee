import { auditEvents, listings, webhookEvents } from "@tollgate/db";
import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import {
  createListing,
  decide,
  listingBody,
  newListing,
  pendingRevisionId,
  registerMerchant,
  signInOperator,
  type TestMerchant,
} from "./listings-testing";

describe.each(storageDatabaseKinds("postgres"))("POST /admin/api/marketplace/{id}/approve on %s", (kind) => {
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
  const eventsFor = async (id: string) =>
    (
      await api.deps.db.db.select().from(webhookEvents).where(eq(webhookEvents.merchantId, merchant.id))
    ).filter((event) => event.payload.listing_id === id);

  describe("happy", () => {
    it("publishes the pending revision, audits it and enqueues listing.approved in the same step", async () => {
      const id = await newListing(api, merchant);
      const approved = await decide(api, operator, id, "approve");
      expect(approved.status, approved.text).toBe(200);
      expect(approved.json).toMatchObject({
        id,
        status: "approved",
        merchant_id: merchant.id,
        merchant_name: merchant.name,
        decided_by: operator.id,
        published: { route: "/v1/search", title: "Web search", category: "search" },
      });
      expect((await row(id))?.liveRevisionId).toBe((approved.json.live_revision as { id: string }).id);
      expect(approved.json.pending_revision).toBeNull();
      const audit = await auditFor(id);
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        action: "listing.approved",
        actorType: "admin",
        actorId: operator.id,
      });
      const events = await eventsFor(id);
      expect(events.map((e) => e.type)).toEqual(["listing.approved"]);
      expect(events[0]?.payload).toMatchObject({
        listing_id: id,
        revision: 1,
        status: "approved",
        reason: null,
      });
      const merchantView = await api.call("GET", `/v1/merchants/${merchant.id}/listings/${id}`, {
        headers: bearer(merchant.secret),
      });
      expect(merchantView.json).toMatchObject({ status: "approved", published: { title: "Web search" } });
    });

    it("with the pending revision's id: approves it", async () => {
      const id = await newListing(api, merchant, { route: "/rev" });
      const revisionId = await pendingRevisionId(api, id);
      expect((await decide(api, operator, id, "approve", { revision_id: revisionId })).status).toBe(200);
    });
  });

  describe("errors", () => {
    it("an unknown listing is 404, a malformed id 400", async () => {
      const unknown = await decide(api, operator, "lst_1111111111111111", "approve");
      expect(unknown.status).toBe(404);
      expect(unknown.json.code).toBe("listing_not_found");
      const malformed = await decide(api, operator, "mrch_1111111111111111", "approve");
      expect(malformed.status).toBe(400);
      const id = await newListing(api, merchant, { route: "/no-revision" });
      const withoutRevision = await api.call("POST", `/admin/api/marketplace/${id}/approve`, {
        headers: operator.headers,
        body: {},
      });
      expect(withoutRevision.status).toBe(400);
      expect(withoutRevision.json.code).toBe("validation_failed");
    });

    it("approving twice answers 409 listing_not_pending and changes nothing more", async () => {
      const id = await newListing(api, merchant, { route: "/twice" });
      expect((await decide(api, operator, id, "approve")).status).toBe(200);
      const again = await decide(api, operator, id, "approve");
      expect(again.status).toBe(409);
      expect(again.json.code).toBe("listing_not_pending");
      expect(await auditFor(id)).toHaveLength(1);
      expect(await eventsFor(id)).toHaveLength(1);
    });

    it("a stale revision answers 409: an edit the operator has not seen is never published", async () => {
      const created = await createListing(api, merchant, listingBody({ route: "/stale" }));
      const id = String(created.json.id);
      const edited = await api.call("PATCH", `/v1/merchants/${merchant.id}/listings/${id}`, {
        headers: bearer(merchant.secret),
        body: { title: "Edited title" },
      });
      expect(edited.json.revision).toBe(2);
      const stale = await decide(api, operator, id, "approve", {
        revision_id: (created.json.pending_revision as { id: string }).id,
      });
      expect(stale.status).toBe(409);
      expect(stale.json.code).toBe("listing_revision_stale");
      expect((await row(id))?.liveRevisionId).toBeNull();
    });

    it("parallel approve and reject of one listing: one wins, the other is 409", async () => {
      for (let round = 0; round < 3; round++) {
        const id = await newListing(api, merchant, { route: `/race${round}` });
        const results = await Promise.all([
          decide(api, operator, id, "approve"),
          decide(api, operator, id, "reject"),
          decide(api, operator, id, "approve"),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
        const winner = results.find((r) => r.status === 200)!;
        expect((await row(id))?.status).toBe(winner.json.status);
        expect(await auditFor(id)).toHaveLength(1);
        expect(await eventsFor(id)).toHaveLength(1);
        await api.call("DELETE", `/v1/merchants/${merchant.id}/listings/${id}`, {
          headers: bearer(merchant.secret),
        });
      }
    });
  });

  describe("security", () => {
    it("needs an operator session: none or a merchant secret is 401, a viewer 403; nothing changes", async () => {
      const id = await newListing(api, merchant, { route: "/secure" });
      const none = await api.call("POST", `/admin/api/marketplace/${id}/approve`, {
        body: { revision_id: await pendingRevisionId(api, id) },
      });
      expect(none.status).toBe(401);
      expect(none.json.code).toBe("admin_auth_required");
      const asMerchant = await decide(api, { headers: bearer(merchant.secret) }, id, "approve");
      expect(asMerchant.status).toBe(401);
      const viewer = await signInOperator(api, "viewer");
      const asViewer = await decide(api, viewer, id, "approve");
      expect(asViewer.status).toBe(403);
      expect(asViewer.json.code).toBe("admin_role_forbidden");
      expect((await row(id))?.status).toBe("pending");
      expect(await auditFor(id)).toHaveLength(0);
    });

    it("a cookie session without the same-origin proof is refused", async () => {
      const id = await newListing(api, merchant, { route: "/csrf" });
      const token = operator.headers.authorization!.replace("Bearer ", "");
      const body = { revision_id: await pendingRevisionId(api, id) };
      const response = await api.call("POST", `/admin/api/marketplace/${id}/approve`, {
        headers: { cookie: `tollgate_admin=${token}` },
        body,
      });
      expect(response.status).toBe(403);
      expect(response.json.code).toBe("csrf_check_failed");
      const withProof = await api.call("POST", `/admin/api/marketplace/${id}/approve`, {
        headers: { cookie: `tollgate_admin=${token}`, [ADMIN_CSRF_HEADER]: "1" },
        body,
      });
      expect(withProof.status).toBe(200);
    });
  });
});
