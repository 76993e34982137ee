/**
 * Bridge orders paid but not served reach the operators' refund queue: the real bridge mounted in the API,
 * a real local amoy chain, a real `payMatic` payment, an upstream that fails, then one that serves.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditEvents, bridgeUnservedPayments } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChains, startTestChains } from "../../test/chains";
import { startTestApi, type TestApi } from "../../test/harness";
import { createUnservedRecorder } from "../bridge";
import { payMaticWith, startTestUpstream, type TestUpstream } from "../bridge/testing";
import { ManualClock } from "../identity/testing";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { registerMerchant } from "../operators/testing";
import { failedPaymentFixtures } from "./dashboard-testing";

const PRICE_WEI = 10n ** 15n;

interface FailedItem {
  id: string;
  kind: string;
  reason: string;
  status: string;
  network: string;
  tx_hash: string;
  payer: string;
  total_amount: string;
  order_id: string;
  settlement_state: string | null;
  bridge: { provider: string; attempts: number; replayable_until: string } | null;
}

describe("GET /api/dashboard/failed: bridge orders paid but not served (real bridge, local chain)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-failed-bridge-"));
  const clock = new ManualClock(new Date());
  let chains: LocalChains;
  let upstream: TestUpstream;
  let api: TestApi;
  let operator: SignedIn;
  let payer: Agent;
  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    upstream = await startTestUpstream();
    const providers = join(dataDir, "providers.json");
    writeFileSync(
      providers,
      JSON.stringify({
        providers: [
          {
            id: "acme",
            upstream_url: `${upstream.url}/api`,
            auth_style: "x-api-key",
            api_key: "upstream-secret",
            price_wei: PRICE_WEI.toString(),
            merchant_wallet: "0x52908400098527886e0f7030069857d2e4169ee7",
          },
        ],
      }),
    );
    api = await startTestApi(
      "pglite",
      { DATA_DIR: dataDir, BRIDGE_PROVIDERS_FILE: providers, CONFIRMATIONS_AMOY: "1" },
      { clock },
    );
    operator = await signInAs(api, "operator");
    payer = agentOn(chains.chains[0]!, 13);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const queue = async (query = "") => {
    const response = await api.call("GET", `/api/dashboard/failed${query}`, {
      headers: { cookie: operator.cookie },
    });
    expect(response.status, response.text).toBe(200);
    return response.json as unknown as { failed: FailedItem[]; next_cursor: string | null };
  };

  /** A challenge for `path`, paid on chain with the stated pay_matic terms. */
  async function paidOrder(path: string) {
    const challenge = await fetch(`${api.baseUrl}/bridge/acme${path}`);
    expect(challenge.status).toBe(402);
    const body = (await challenge.json()) as { pay_matic: Record<string, string> };
    const tx = await payMaticWith(payer, body.pay_matic);
    return {
      orderId: body.pay_matic.order_id!,
      tx,
      total: body.pay_matic.total_wei!,
      headers: { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id! },
    };
  }

  it("an upstream failure after payment is listed with network, tx hash, payer, amount and provider; a served replay removes it", async () => {
    const order = await paidOrder("/search?q=served-later");
    upstream.mode = "500";
    const failed = await fetch(`${api.baseUrl}/bridge/acme/search?q=served-later`, {
      headers: order.headers,
    });
    expect(failed.status).toBe(502);
    const again = await fetch(`${api.baseUrl}/bridge/acme/search?q=served-later`, { headers: order.headers });
    expect(again.status).toBe(502);

    const listed = (await queue()).failed.find((item) => item.order_id === order.orderId);
    expect(listed).toMatchObject({
      id: `fail_${order.orderId}`,
      kind: "bridge_unserved",
      reason: "upstream_failed",
      status: "open",
      network: "amoy",
      tx_hash: order.tx.toLowerCase(),
      payer: payer.address.toLowerCase(),
      total_amount: order.total,
      settlement_state: null,
      bridge: { provider: "acme", attempts: 2 },
    });
    expect((await queue("?kind=bridge_unserved")).failed.map((item) => item.id)).toEqual([listed!.id]);
    expect((await queue("?kind=reverted")).failed).toEqual([]);

    upstream.mode = "ok";
    const served = await fetch(`${api.baseUrl}/bridge/acme/search?q=served-later`, {
      headers: order.headers,
    });
    expect(served.status).toBe(200);
    expect((await queue("?status=all")).failed.map((item) => item.id)).not.toContain(listed!.id);
  }, 60_000);

  it("resolve: refused (409) while the payer can still replay, then refunded once with its audit event; a second resolve is 409", async () => {
    const order = await paidOrder("/search?q=never-served");
    upstream.mode = "503";
    expect(
      (await fetch(`${api.baseUrl}/bridge/acme/search?q=never-served`, { headers: order.headers })).status,
    ).toBe(502);
    upstream.mode = "ok";
    const id = `fail_${order.orderId}`;
    const body = { resolution: "refunded", note: "refunded by hand", refund_tx_hash: `0x${"cd".repeat(32)}` };
    const early = await api.call("POST", `/api/dashboard/failed/${id}/resolve`, {
      body,
      headers: operator.acting,
    });
    expect(early.status, early.text).toBe(409);
    expect(early.json.code).toBe("conflict");

    const [row] = await api.deps.db.db
      .select()
      .from(bridgeUnservedPayments)
      .where(eq(bridgeUnservedPayments.orderId, order.orderId));
    clock.advance(row!.replayableUntil.getTime() - clock.now().getTime() + 1);
    const fresh = await signInAs(api, "operator");
    const done = await api.call("POST", `/api/dashboard/failed/${id}/resolve`, {
      body,
      headers: fresh.acting,
    });
    expect(done.status, done.text).toBe(200);
    expect(done.json).toMatchObject({ id, kind: "bridge_unserved", status: "refunded" });
    const second = await api.call("POST", `/api/dashboard/failed/${id}/resolve`, {
      body,
      headers: fresh.acting,
    });
    expect(second.status).toBe(409);
    const audit = await api.deps.db.db.select().from(auditEvents).where(eq(auditEvents.targetId, id));
    expect(audit.map((event) => event.action)).toEqual(["failed_payment.refunded"]);
    const refunded = await api.call("GET", "/api/dashboard/failed?status=refunded&kind=bridge_unserved", {
      headers: { cookie: fresh.cookie },
    });
    expect((refunded.json.failed as FailedItem[]).map((item) => item.id)).toEqual([id]);
    // The replay window is over: the bridge no longer knows the order, so nothing can serve it twice.
    const late = await fetch(`${api.baseUrl}/bridge/acme/search?q=never-served`, { headers: order.headers });
    expect(late.status).toBe(404);
  }, 60_000);

  it("security and bad input: a viewer cannot resolve; unknown or malformed bridge ids are 404/400", async () => {
    const viewer = await signInAs(api, "viewer");
    const body = { resolution: "dismissed", note: "not ours" };
    const forbidden = await api.call("POST", "/api/dashboard/failed/fail_ord_1111111111111111/resolve", {
      body,
      headers: viewer.acting,
    });
    expect(forbidden.status).toBe(403);
    const operatorNow = await signInAs(api, "operator");
    const unknown = await api.call("POST", "/api/dashboard/failed/fail_ord_1111111111111111/resolve", {
      body,
      headers: operatorNow.acting,
    });
    expect(unknown.status).toBe(404);
    for (const bad of ["fail_ord_0OIl", "fail_ord_", "fail_qt_1111"]) {
      const res = await api.call("POST", `/api/dashboard/failed/${bad}/resolve`, {
        body,
        headers: operatorNow.acting,
      });
      expect(res.status, bad).toBe(400);
    }
    const badCursor = await api.call("GET", "/api/dashboard/failed?cursor=WyIxIl0", {
      headers: { cookie: operatorNow.cookie },
    });
    expect(badCursor.status).toBe(400);
  });

  it("pages: settlement failures and unserved bridge orders merge under one cursor, each listed exactly once", async () => {
    const merchant = await registerMerchant(api);
    await failedPaymentFixtures(api, merchant.id);
    const recorder = createUnservedRecorder(api.deps.db.db, clock, api.deps.log);
    for (let n = 0; n < 3; n += 1) {
      await recorder.failed({
        orderId: `ord_Merge${n}11111111111111`,
        provider: "acme",
        network: "amoy",
        chainId: 80002,
        txHash: `0x${String(n).repeat(64)}`,
        logIndex: 0,
        payer: payer.address,
        merchantAddress: payer.address,
        totalAmount: "1000",
        error: "upstream_timeout",
        replayableUntil: clock.now(),
      });
    }
    const signedIn = await signInAs(api, "viewer");
    const read = async (query: string) => {
      const response = await api.call("GET", `/api/dashboard/failed${query}`, {
        headers: { cookie: signedIn.cookie },
      });
      expect(response.status, response.text).toBe(200);
      return response.json as unknown as { failed: FailedItem[]; next_cursor: string | null };
    };
    const everything = (await read("?status=all&limit=200")).failed.map((item) => item.id);
    expect(everything.filter((id) => id.startsWith("fail_ord_Merge"))).toHaveLength(3);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await read(`?status=all&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      paged.push(...page.failed.map((item) => item.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged.sort()).toEqual([...everything].sort());
    expect(new Set(paged).size).toBe(paged.length);
    // A merchant filter leaves bridge rows out: they name a provider, not a merchant.
    const byMerchant = await read(`?status=all&merchant=${merchant.id}`);
    expect(byMerchant.failed.some((item) => item.kind === "bridge_unserved")).toBe(false);
  });
});
