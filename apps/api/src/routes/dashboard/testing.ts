/** Fixtures for the operator dashboard tests: merchants with webhook deliveries in given states (issue 10). */
import { webhookDeliveries } from "@tollgate/db";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import { eq } from "drizzle-orm";
import { bearer, registrationBody, type TestApi } from "../../test/harness";

/** A merchant with a webhook endpoint and one event per status given. */
export async function merchantWithDeliveries(
  api: TestApi,
  statuses: ("pending" | "delivered" | "failed" | "dead")[],
) {
  const created = await api.call("POST", "/v1/merchants", { body: registrationBody() });
  const merchantId = String(created.json.merchant_id);
  const secret = await api.call("POST", `/v1/merchants/${merchantId}/webhook-secret`, {
    headers: bearer(created.json.secret),
  });
  if (secret.status !== 200) throw new Error(`webhook secret: ${secret.text}`);
  const events = await enqueueWebhookEvents(
    api.deps.db.db,
    statuses.map(() => ({
      merchantId,
      type: "test.ping" as const,
      data: { message: "dashboard test", merchant_id: merchantId },
    })),
    new Date(),
  );
  for (const [index, status] of statuses.entries()) {
    await api.deps.db.db
      .update(webhookDeliveries)
      .set({ status, attempts: status === "dead" ? 8 : 1, lastStatus: status === "dead" ? 500 : 200 })
      .where(eq(webhookDeliveries.eventId, events[index]!.eventId));
  }
  return { merchantId, eventIds: events.map((event) => event.eventId) };
}
