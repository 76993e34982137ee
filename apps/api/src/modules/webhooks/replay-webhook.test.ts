import { auditEvents, webhookDeliveries } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { merchantWithDeliveries } from "../operator/dashboard-testing";
import { type SignedIn, signInAs } from "../operators/admin-testing";

describe.each(storageDatabaseKinds("pglite"))(
  "POST /api/dashboard/webhooks/{event_id}/replay on %s",
  (kind) => {
    let api: TestApi;
    let operator: SignedIn;
    beforeAll(async () => {
      api = await startTestApi(kind);
      operator = await signInAs(api, "operator");
    });
    afterAll(async () => {
      await api?.close();
    });
    const replay = (eventId: string, headers = operator.acting) =>
      api.call("POST", `/api/dashboard/webhooks/${eventId}/replay`, { headers });
    const delivery = async (eventId: string) =>
      (
        await api.deps.db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId))
      )[0]!;

    it("happy: a dead letter goes back to pending with the same event id (same webhook-id), audited", async () => {
      const { eventIds, merchantId } = await merchantWithDeliveries(api, ["dead"]);
      const eventId = eventIds[0]!;
      const response = await replay(eventId);
      expect(response.status, response.text).toBe(200);
      expect(response.json).toEqual({
        event_id: eventId,
        merchant_id: merchantId,
        previous_status: "dead",
        status: "pending",
      });
      expect(await delivery(eventId)).toMatchObject({ status: "pending", attempts: 0, eventId });
      const [event] = await api.deps.db.db
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.targetId, eventId));
      expect(event).toMatchObject({
        action: "webhook.replayed",
        actorId: operator.id,
        before: { status: "dead" },
      });
    });

    it("error: pending or delivered is 409, unknown is 404, a malformed id is 400; nothing changes", async () => {
      const { eventIds } = await merchantWithDeliveries(api, ["pending", "delivered"]);
      for (const eventId of eventIds) {
        const response = await replay(eventId);
        expect(response.status).toBe(409);
        expect(response.json.code).toBe("conflict");
      }
      expect((await delivery(eventIds[1]!)).status).toBe("delivered");
      const unknown = await replay("evt_1111111111111111111111");
      expect(unknown.status).toBe(404);
      expect(unknown.json.code).toBe("webhook_event_not_found");
      for (const bad of ["not-an-id", "__proto__", "rcpt_1111111111111111111111"]) {
        const response = await replay(bad);
        expect(response.status, bad).toBe(400);
        expect(response.headers.get("content-type")).toContain("application/problem+json");
      }
    });

    it("security: viewers, missing sessions and cross-site requests cannot replay", async () => {
      const { eventIds } = await merchantWithDeliveries(api, ["dead"]);
      const eventId = eventIds[0]!;
      const viewer = await signInAs(api, "viewer");
      expect((await replay(eventId, viewer.acting)).json.code).toBe("admin_role_forbidden");
      expect((await replay(eventId, { cookie: operator.cookie })).json.code).toBe("csrf_check_failed");
      expect((await replay(eventId, { ...operator.acting, origin: "https://evil.example" })).json.code).toBe(
        "csrf_check_failed",
      );
      expect((await replay(eventId, {})).status).toBe(401);
      expect((await delivery(eventId)).status).toBe("dead");
    });
  },
);
