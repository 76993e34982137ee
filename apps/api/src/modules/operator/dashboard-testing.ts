/** Fixtures for the operator dashboard tests: webhook deliveries in given states, failed payments. */
import { receipts, settlements, webhookDeliveries } from "@tollgate/db";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import { eq } from "drizzle-orm";
import { bearer, registrationBody, type TestApi } from "../../test/harness";
import { insertPaidQuote, settlementRow } from "../operators/testing";

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

let failedCounter = 5_000;

/**
 * Settlements as the indexer writes them, one per failure kind and two that did not fail
 * (`/api/dashboard/failed`): a paid quote with its receipt, and an orphaned log nobody was told about.
 */
export async function failedPaymentFixtures(api: TestApi, merchantId: string) {
  const db = api.deps.db.db;
  const k = () => (failedCounter += 1);
  const settlementOf = async (txHash: string) =>
    (await db.select().from(settlements).where(eq(settlements.txHash, txHash)))[0]!;
  // Underpaid: the log names a quote it does not pay.
  const unmatchedK = k();
  await db.insert(settlements).values(
    settlementRow(unmatchedK, {
      merchantId,
      quoteMismatch: { quote_id: "qt_unpaid1", reason: "amount_mismatch" },
    }),
  );
  const unmatched = await settlementOf(settlementRow(unmatchedK).txHash);
  // Paid in time, never claimed: the receipt is not there.
  const unclaimedPaid = await insertPaidQuote(api, merchantId, k());
  await db.delete(receipts).where(eq(receipts.id, unclaimedPaid.receiptId));
  // Mined two hours after the quote expired: /v1/pay refused it.
  const latePaid = await insertPaidQuote(api, merchantId, k());
  await db.delete(receipts).where(eq(receipts.id, latePaid.receiptId));
  const late = await settlementOf(latePaid.txHash);
  await db
    .update(settlements)
    .set({ seenAt: new Date(late.seenAt.getTime() + 2 * 3_600_000) })
    .where(eq(settlements.id, late.id));
  // Reorged away after the merchant was told and the receipt issued.
  const revertedPaid = await insertPaidQuote(api, merchantId, k());
  await db
    .update(settlements)
    .set({ state: "orphaned", notifiedAt: new Date(), orphanedAt: new Date() })
    .where(eq(settlements.txHash, revertedPaid.txHash));
  await db.update(receipts).set({ state: "revoked" }).where(eq(receipts.id, revertedPaid.receiptId));
  // Healthy, and orphaned before anyone relied on it: neither is listed.
  const healthy = await insertPaidQuote(api, merchantId, k());
  const quietK = k();
  await db.insert(settlements).values(settlementRow(quietK, { merchantId, state: "orphaned" }));
  return {
    unmatched: `fail_${unmatched.id}`,
    unclaimed: `fail_${(await settlementOf(unclaimedPaid.txHash)).id}`,
    late: `fail_${late.id}`,
    reverted: `fail_${(await settlementOf(revertedPaid.txHash)).id}`,
    healthy: `fail_${(await settlementOf(healthy.txHash)).id}`,
    quiet: `fail_${(await settlementOf(settlementRow(quietK).txHash)).id}`,
  };
}
