/**
 * The `pay_matic` rail's refusals, which all come before any RPC call (offline registry: a call would fail).
 * Paying and replaying real transactions: router.legacy.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { claimKeys, createMemoryOrderStore, type OrderStore, USED_RETENTION_MS } from "./orders";
import {
  type Json,
  randomAddress,
  readJson,
  startOfflineBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "./testing";

const TX = `0x${"ab".repeat(32)}`;

describe("legacy pay_matic rail: refusals before the chain", () => {
  let upstream: TestUpstream;
  let bridge: TestBridge;
  let store: OrderStore;

  beforeAll(async () => {
    upstream = await startTestUpstream();
    store = createMemoryOrderStore();
    bridge = await startOfflineBridge(
      [
        {
          id: "acme",
          upstream_url: `${upstream.url}/api`,
          price_wei: "1000000000000000",
          merchant_wallet: randomAddress(),
        },
      ],
      {},
      { store },
    );
  });
  afterAll(async () => {
    await bridge?.close();
    await store?.close();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.seen.length = 0;
  });

  const orderFor = async (path: string): Promise<string> => {
    const body: Json = await readJson(await fetch(`${bridge.url}/acme${path}`));
    return body.pay_matic.order_id;
  };
  const prove = async (path: string, orderId: string, tx = TX) => {
    const response = await fetch(`${bridge.url}/acme${path}`, {
      headers: { "x-tx-hash": tx, "x-order-id": orderId },
    });
    return { status: response.status, problem: await readJson(response) };
  };

  it("a malformed tx hash is 400, a non-order id or an unknown order 404", async () => {
    expect(await prove("/a", "ord_1111111111111111", "0x12")).toMatchObject({
      status: 400,
      problem: { code: "validation_failed" },
    });
    expect(await prove("/a", "mrch_1111111111111111")).toMatchObject({
      status: 404,
      problem: { code: "order_not_found" },
    });
    expect(await prove("/a", "ord_1111111111111111")).toMatchObject({
      status: 404,
      problem: { code: "order_not_found", detail: expect.stringMatching(/fresh challenge/) },
    });
  });

  it("an order issued for another path or body is 422 order_request_mismatch", async () => {
    const orderId = await orderFor("/cheap");
    expect(await prove("/expensive", orderId)).toMatchObject({
      status: 422,
      problem: { code: "order_request_mismatch" },
    });
    const post = await fetch(`${bridge.url}/acme/cheap`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-tx-hash": TX, "x-order-id": orderId },
      body: "{}",
    });
    expect(post.status).toBe(422);
  });

  it("a used order is 409 before any RPC call; a whole-transaction mark no longer blocks", async () => {
    const orderId = await orderFor("/used");
    const taken = await store.claim([claimKeys.order(orderId)], 60_000);
    if (!taken.ok) throw new Error("claim failed");
    await store.consume([claimKeys.order(orderId)], taken.lease, USED_RETENTION_MS);
    expect(await prove("/used", orderId)).toMatchObject({
      status: 409,
      problem: { code: "order_already_used" },
    });

    // Payments are locked per verified log: a transaction-wide mark is not consulted (the RPC is, here 503).
    const fresh = await orderFor("/used");
    const tx = await store.claim([claimKeys.tx(80002, TX)], 60_000);
    if (!tx.ok) throw new Error("claim failed");
    await store.consume([claimKeys.tx(80002, TX)], tx.lease, USED_RETENTION_MS);
    expect(await prove("/used", fresh)).toMatchObject({
      status: 503,
      problem: { code: "chain_unavailable" },
    });
    expect(upstream.seen).toHaveLength(0);
  });

  it("a valid-looking unused proof reaches the chain: an unreachable RPC is 503, the order stays unused", async () => {
    const orderId = await orderFor("/rpc");
    expect(await prove("/rpc", orderId, `0x${"cd".repeat(32)}`)).toMatchObject({
      status: 503,
      problem: { code: "chain_unavailable" },
    });
    expect(await store.state(claimKeys.order(orderId))).toBe("free");
    expect(upstream.seen).toHaveLength(0);
  });
});
