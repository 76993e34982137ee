/**
 * The bridge's legacy `x-tx-hash` + `x-order-id` path on a real local amoy chain, paid with viem: one proof buys
 * one call of the request it was issued for, a pending transaction waits, and a payment mined in time is honoured.
 */
import { splitFromPrice, splitterV12Abi } from "@tollgate/shared";
import { type Hash, parseEventLogs } from "viem";
import { describe, expect, it } from "vitest";
import { mine, setAutomine } from "../../test/chains";
import {
  base,
  chain,
  chains,
  challenge,
  merchant,
  PRICE_WEI,
  paidOrder,
  paidUrl,
  payerLegacy,
  payMatic,
  polBalance,
  provider,
  treasury,
  upstream,
  useBridgeRouterFixture,
} from "./router-fixture";
import { readJson, startTestBridge } from "./testing";

describe("bridge router: legacy pay_matic proofs", () => {
  useBridgeRouterFixture();

  it("legacy x-tx-hash + x-order-id with viem: verified through the shared verifier, one call, every leg paid", async () => {
    const legs = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", PRICE_WEI);
    const [merchantBefore, treasuryBefore] = [await polBalance(merchant), await polBalance(treasury)];
    const { headers, tx } = await paidOrder(payerLegacy, "/search?q=tolls");
    const receipt = await payerLegacy.client.getTransactionReceipt({ hash: tx });
    expect(parseEventLogs({ abi: splitterV12Abi, logs: receipt.logs, eventName: "Payment" })).toHaveLength(1);
    expect(await polBalance(merchant)).toBe(merchantBefore + legs.merchant);
    expect(await polBalance(treasury)).toBe(treasuryBefore + legs.treasury);
    const seenBefore = upstream.seen.length;
    // Headers a browser or a proxy in front of us may add: only the allow-listed end-to-end ones pass.
    const response = await fetch(paidUrl(), {
      headers: {
        ...headers,
        accept: "application/json",
        cookie: "tollgate_admin=ases_operatorsession; tollgate_user=usr_usersession",
        authorization: "Bearer ases_operatorsession",
        "x-tollgate-csrf": "1",
        "x-forwarded-for": "10.0.0.1",
        "x-custom": "not on the list",
      },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await readJson(response)).toMatchObject({ answer: 42 });
    const received = upstream.seen.at(-1)!.headers;
    expect(received.accept).toBe("application/json");
    for (const name of [
      "cookie",
      "authorization",
      "x-tollgate-csrf",
      "x-forwarded-for",
      "x-custom",
      "x-order-id",
    ]) {
      expect(received[name], name).toBeUndefined();
    }
    const paid = JSON.parse(Buffer.from(response.headers.get("x-payment-receipt")!, "base64").toString());
    expect(paid).toMatchObject({ rail: "pay_matic", tx_hash: tx, payer: payerLegacy.address });
    expect(upstream.seen.length).toBe(seenBefore + 1);
    expect(upstream.seen.at(-1)!.headers["x-tx-hash"]).toBeUndefined();

    // The same order and transaction again: refused, nothing forwarded.
    const again = await fetch(paidUrl(), { headers });
    expect(again.status).toBe(409);
    expect((await readJson(again)).code).toBe("order_already_used");

    // The same (used) order with another transaction.
    const other = await paidOrder(payerLegacy, "/search?q=tolls");
    const swapped = await fetch(paidUrl(), {
      headers: { ...headers, "x-tx-hash": other.tx },
    });
    expect(swapped.status).toBe(409);
    expect((await readJson(swapped)).code).toBe("order_already_used");

    // Another (fresh) order with the used transaction.
    const { body: fresh } = await challenge("/search?q=tolls");
    const reused = await fetch(paidUrl(), {
      headers: { "x-tx-hash": tx, "x-order-id": fresh.pay_matic.order_id },
    });
    // Locks are per verified log, so this is the order's missing log, not a used transaction.
    expect(reused.status).toBe(422);
    expect((await readJson(reused)).code).toBe("payment_log_missing");

    // A valid unused transaction for order A presented with order B: the log does not match.
    const { body: fresh2 } = await challenge("/search?q=tolls");
    const mismatched = await fetch(paidUrl(), {
      headers: { "x-tx-hash": other.tx, "x-order-id": fresh2.pay_matic.order_id },
    });
    expect(mismatched.status).toBe(422);
    expect((await readJson(mismatched)).code).toBe("payment_log_missing");
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });

  it("a proof bound to another body (or path) is refused; the right request still works", async () => {
    const post = (body: string) => ({
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const { headers } = await paidOrder(payerLegacy, "/search", post('{"q":"cheap"}'));
    const seenBefore = upstream.seen.length;
    const otherBody = await fetch(`${base}/search`, {
      ...post('{"q":"expensive"}'),
      headers: { ...post("").headers, ...headers },
    });
    expect(otherBody.status).toBe(422);
    expect((await readJson(otherBody)).code).toBe("order_request_mismatch");
    const otherPath = await fetch(`${base}/other`, {
      ...post('{"q":"cheap"}'),
      headers: { ...post("").headers, ...headers },
    });
    expect(otherPath.status).toBe(422);
    expect(upstream.seen.length).toBe(seenBefore);
    const right = await fetch(`${base}/search`, {
      ...post('{"q":"cheap"}'),
      headers: { ...post("").headers, ...headers },
    });
    expect(right.status).toBe(200);
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });

  it("parallel retries of one proof buy exactly one upstream call", async () => {
    const { headers } = await paidOrder(payerLegacy, "/search?q=parallel");
    const seenBefore = upstream.seen.length;
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${base}/search?q=parallel`, { headers })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });

  it("a payment not mined yet gets 425 payment_pending and works once mined", async () => {
    const { body } = await challenge("/pending");
    await setAutomine(chain, false);
    let tx: Hash;
    try {
      tx = await payerLegacy.wallet.writeContract({
        account: payerLegacy.account,
        chain: null,
        address: body.pay_matic.splitter,
        abi: splitterV12Abi,
        functionName: "payMatic",
        args: [body.pay_matic.merchant_wallet, body.pay_matic.ip_creator, body.pay_matic.order_id],
        value: BigInt(body.pay_matic.total_wei),
      });
      const headers = { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id };
      const pending = await fetch(`${base}/pending`, { headers });
      expect(pending.status).toBe(425);
      expect(pending.headers.get("retry-after")).toBeTruthy();
      expect((await readJson(pending)).code).toBe("payment_pending");
      await mine(chain, 1);
      expect((await fetch(`${base}/pending`, { headers })).status).toBe(200);
    } finally {
      await setAutomine(chain, true);
    }
  });

  it("honours a payment mined before the order expired even when it is presented after", async () => {
    let offsetMs = 0;
    const late = await startTestBridge(
      chains,
      [provider()],
      { BRIDGE_ORDER_TTL_SECONDS: "600" },
      { clock: { now: () => new Date(Date.now() + offsetMs) } },
    );
    try {
      const response = await fetch(`${late.url}/acme/late`);
      const body = await readJson(response);
      const tx = await payMatic(payerLegacy, body.pay_matic);
      offsetMs = 15 * 60_000; // the proof arrives fifteen minutes later, after the 10-minute TTL
      const ok = await fetch(`${late.url}/acme/late`, {
        headers: { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id },
      });
      expect(ok.status, await ok.clone().text()).toBe(200);

      // A payment mined after the TTL is refused (chain time moved past it; this test runs last for that reason).
      offsetMs = 0;
      const body2 = await readJson(await fetch(`${late.url}/acme/late`));
      await chain.provider.request({ method: "evm_increaseTime", params: [1200] } as never);
      const tx2 = await payMatic(payerLegacy, body2.pay_matic);
      const refused = await fetch(`${late.url}/acme/late`, {
        headers: { "x-tx-hash": tx2, "x-order-id": body2.pay_matic.order_id },
      });
      expect(refused.status).toBe(422);
      expect((await readJson(refused)).code).toBe("payment_after_order_expiry");
    } finally {
      await late.close();
    }
  });
});
