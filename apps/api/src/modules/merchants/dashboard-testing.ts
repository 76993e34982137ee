/** Fixtures for the merchant dashboard tests: quotes, receipts, settlements and deliveries of one merchant. */
import { quotes, receipts, settlements, webhookDeliveries } from "@tollgate/db";
import { enqueueWebhookEvents } from "@tollgate/webhooks";
import { eq } from "drizzle-orm";
import { bearer, type TestApi } from "../../test/harness";

let counter = 0;
const hex = (n: number, length: number) => `0x${n.toString(16).padStart(length, "0")}`;

/** A quote for `resource`, created at `at`; with `paid`, also its receipt. */
export async function seedQuote(
  api: TestApi,
  merchantId: string,
  resource: string,
  at: string,
  paid?: { units?: number; state?: "valid" | "suspended" | "revoked"; expiresAt?: string },
) {
  counter++;
  const id = `qt_dash${counter.toString().padStart(17, "0")}`;
  const units = paid?.units ?? 1;
  await api.deps.db.db.insert(quotes).values({
    id,
    merchantId,
    resource,
    tier: "standard",
    payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
    units,
    unitPriceMicroUsd: 100_000n,
    amountMicroUsd: BigInt(units) * 100_000n,
    network: "amoy",
    chainId: 80002,
    settlementVersion: "1.4",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    payTo: "0x52908400098527886e0f7030069857d2e4169ee7",
    asset: "USDC",
    token: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    decimals: 6,
    amountAtomic: String(units * 100_000),
    merchantAmount: String(units * 99_000),
    treasuryAmount: String(units * 1_000),
    ipCreatorAmount: "0",
    economicsProfile: "aifp1-gross-inclusive-100-0-v1",
    settlementCall: {},
    expiresAt: new Date(Date.parse(at) + 600_000),
    createdAt: new Date(at),
  });
  if (!paid) return { quoteId: id };
  const receiptId = `rcpt_dash${counter.toString().padStart(17, "0")}`;
  await api.deps.db.db.insert(receipts).values({
    id: receiptId,
    quoteId: id,
    merchantId,
    payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
    chainId: 80002,
    txHash: hex(counter, 64),
    logIndex: 0,
    blockNumber: 10n,
    blockHash: hex(1, 64),
    confirmations: 2,
    quota: units,
    kid: "test",
    token: "jwt",
    issuedAt: new Date(at),
    expiresAt: new Date(paid.expiresAt ?? Date.parse(at) + 86_400_000 * 365),
    state: paid.state ?? "valid",
  });
  return { quoteId: id, receiptId };
}

export function seedSettlement(
  api: TestApi,
  merchantId: string,
  state: "seen" | "confirmed" | "final" | "orphaned",
  at: string,
  merchantAmount: string,
  extra: Partial<typeof settlements.$inferInsert> = {},
) {
  counter++;
  return api.deps.db.db.insert(settlements).values({
    chainId: 80002,
    network: "amoy",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    splitterVersion: "v1.4",
    txHash: hex(1_000_000 + counter, 64),
    logIndex: 0,
    blockNumber: 80n,
    blockHash: hex(2, 64),
    payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
    merchantAddress: "0x52908400098527886e0f7030069857d2e4169ee7",
    token: "0x0000000000000000000000000000000000000000",
    totalAmount: merchantAmount,
    merchantAmount,
    treasuryAmount: "0",
    ipCreatorAmount: "0",
    orderId: `qt_set${counter.toString().padStart(18, "0")}`,
    merchantId,
    state,
    seenAt: new Date(at),
    updatedAt: new Date(at),
    ...extra,
  });
}

/** A webhook endpoint for the merchant and one event per status, created at `at`. */
export async function seedDeliveries(
  api: TestApi,
  merchant: { id: string; secret: string },
  statuses: ("pending" | "delivered" | "failed" | "dead")[],
  at: Date,
) {
  const secret = await api.call("POST", `/v1/merchants/${merchant.id}/webhook-secret`, {
    headers: bearer(merchant.secret),
  });
  if (secret.status !== 200) throw new Error(`webhook secret: ${secret.text}`);
  const events = await enqueueWebhookEvents(
    api.deps.db.db,
    statuses.map(() => ({
      merchantId: merchant.id,
      type: "test.ping" as const,
      data: { message: "dashboard test", merchant_id: merchant.id },
    })),
    at,
  );
  for (const [index, status] of statuses.entries()) {
    const failing = status === "dead" || status === "failed";
    await api.deps.db.db
      .update(webhookDeliveries)
      .set({
        status,
        attempts: status === "dead" ? 8 : 1,
        lastStatus: failing ? 500 : 200,
        lastError: failing ? "HTTP 500" : null,
        lastAttemptAt: new Date(at.getTime() + index * 1000),
      })
      .where(eq(webhookDeliveries.eventId, events[index]!.eventId));
  }
  return events.map((event) => event.eventId);
}
