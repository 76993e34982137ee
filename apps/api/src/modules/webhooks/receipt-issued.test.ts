import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { idempotencyKeys, receipts, webhookDeliveries, webhookEvents } from "@tollgate/db";
import type { QuoteResponse } from "@tollgate/shared";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOn, type LocalChains, payBody, sendSettlement, startTestChains } from "../../test/chains";
import { bearer, registrationBody, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";

describe.each(testDatabaseKinds())("receipt.issued outbox event on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-rcpt-evt-"));
  let chains: LocalChains;
  let api: TestApi;
  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(kind, { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a paid quote's receipt and its receipt.issued event commit together; a replay adds no event", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({
        network_mode: "test",
        tiers: { standard: "0.001" },
        webhook_url: "https://hooks.example.com/t",
      }),
    });
    const merchantId = String(created.json.merchant_id);
    await api.call("POST", `/v1/merchants/${merchantId}/webhook-secret`, {
      headers: bearer(created.json.secret),
    });
    const agent = agentOn(chains.chains[0]!, 9);
    const q = (
      await api.call("POST", "/v1/quote", {
        body: { merchant_id: merchantId, resource: "/v1/search", tier: "standard", payer: agent.address },
      })
    ).json as unknown as QuoteResponse;
    const tx = await sendSettlement(agent, q.settlement_call);
    const key = `rcpt-evt-${Date.now()}-abcdef`;
    const body = await payBody(agent, q, tx, key);
    const paid = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
    expect(paid.status, paid.text).toBe(200);
    const again = await api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body });
    expect(again.status).toBe(200);
    const events = await api.deps.db.db
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.merchantId, merchantId));
    expect(events.map((e) => e.type)).toEqual(["receipt.issued"]);
    expect(events[0]!.payload).toMatchObject({
      quote_id: q.quote_id,
      tx_ref: tx,
      payer: agent.address.toLowerCase(),
    });
    const [delivery] = await api.deps.db.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, events[0]!.id));
    expect(delivery!.status).toBe("pending");
  });

  it("parallel payers of one quote: one receipt, one event, one delivery; every key stores the winner's answer", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({
        network_mode: "test",
        tiers: { standard: "0.001" },
        webhook_url: "https://hooks.example.com/race",
      }),
    });
    const merchantId = String(created.json.merchant_id);
    await api.call("POST", `/v1/merchants/${merchantId}/webhook-secret`, {
      headers: bearer(created.json.secret),
    });
    const agent = agentOn(chains.chains[0]!, 10);
    const q = (
      await api.call("POST", "/v1/quote", {
        body: { merchant_id: merchantId, resource: "/v1/search", tier: "standard", payer: agent.address },
      })
    ).json as unknown as QuoteResponse;
    const tx = await sendSettlement(agent, q.settlement_call);
    const keys = Array.from({ length: 8 }, (_, i) => `rcpt-race-${Date.now()}-${i}-abcdef`);
    const bodies = await Promise.all(keys.map((key) => payBody(agent, q, tx, key)));
    const answers = await Promise.all(
      keys.map((key, i) =>
        api.call("POST", "/v1/pay", { headers: { "idempotency-key": key }, body: bodies[i] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 200));
    const receiptIds = new Set(answers.map((a) => a.json.receipt_id));
    expect(receiptIds.size).toBe(1);
    const db = api.deps.db.db;
    expect(await db.select().from(receipts).where(eq(receipts.quoteId, q.quote_id))).toHaveLength(1);
    const events = await db.select().from(webhookEvents).where(eq(webhookEvents.merchantId, merchantId));
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ quote_id: q.quote_id, receipt_id: [...receiptIds][0] });
    expect(
      await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, events[0]!.id)),
    ).toHaveLength(1);
    const stored = await db.select().from(idempotencyKeys).where(inArray(idempotencyKeys.key, keys));
    expect(stored).toHaveLength(keys.length);
    for (const row of stored) {
      expect(row.state).toBe("done");
      expect(row.responseBody).toMatchObject({ receipt_id: [...receiptIds][0], quote_id: q.quote_id });
    }
  });
});
