/**
 * The x402 rail's matching and refusals without a chain (offline registry: no relayer, no offers). Verifying and
 * settling real authorizations with stock x402 clients: ../router.clients.test.ts.
 */
import { NETWORKS, newId } from "@tollgate/shared";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { routerConfig } from "../config";
import {
  type Json,
  randomAddress,
  readJson,
  startOfflineBridge,
  startTestUpstream,
  type TestBridge,
  type TestUpstream,
} from "../testing";
import type { ExactRequirement, TokenOffer } from "./facilitator";
import { matchRequirements } from "./rail";
import { decodeHeader, encodeHeader, type ParsedPayment } from "./wire";

const payer = randomAddress();
const merchant = randomAddress();
const authorization = {
  from: payer,
  to: merchant,
  value: "150000",
  validAfter: "0",
  validBefore: "9999999999",
  nonce: `0x${"01".repeat(32)}`,
};
const exact = { signature: `0x${"00".repeat(65)}`, authorization };
const usdc: TokenOffer = {
  symbol: "USDC",
  address: randomAddress(),
  decimals: 6,
  name: "USDC",
  version: "2",
};
const usdt: TokenOffer = {
  symbol: "USDT",
  address: randomAddress(),
  decimals: 6,
  name: "USDT",
  version: "1",
};
const requirement = (token: TokenOffer, amount: bigint): ExactRequirement => ({
  network: "amoy",
  chainId: 80002,
  wire: { v1: NETWORKS.amoy.x402V1Name, v2: NETWORKS.amoy.caip2 },
  token,
  payTo: merchant,
  amount,
  maxTimeoutSeconds: 600,
});

describe("matchRequirements", () => {
  const provider = routerConfig([
    { id: "acme", upstream_url: "http://127.0.0.1:9", price_wei: "1", merchant_wallet: merchant },
  ]).providers[0]!;
  const offered = [requirement(usdc, 150_000n), requirement(usdt, 200_000n)];
  const ctx = {
    requirementsFor: async () => offered,
    wireNetwork: (version: 1 | 2) => (version === 1 ? NETWORKS.amoy.x402V1Name : NETWORKS.amoy.caip2),
  };
  const v2 = (accepted: {
    asset: string;
    payTo: string;
    amount: string;
    scheme?: string;
    network?: string;
  }) => ({
    version: 2 as const,
    header: "PAYMENT-SIGNATURE" as const,
    payload: {
      x402Version: 2 as const,
      accepted: { scheme: "exact", network: "eip155:80002", ...accepted },
      payload: exact,
    },
  });
  const v1 = (scheme: string, network: string): ParsedPayment => ({
    version: 1,
    header: "X-PAYMENT",
    payload: { x402Version: 1, scheme, network, payload: exact },
  });

  it("v2: the accepted requirement must equal an offer on asset, payTo and amount", async () => {
    const accepted = { asset: usdt.address.toLowerCase(), payTo: merchant, amount: "200000" };
    expect((await matchRequirements(ctx, v2(accepted), provider)).candidates).toEqual([offered[1]]);
    for (const wrong of [
      { ...accepted, amount: "199999" },
      { ...accepted, payTo: payer },
      { ...accepted, asset: randomAddress() },
    ]) {
      expect(await matchRequirements(ctx, v2(wrong), provider)).toEqual({
        candidates: [],
        reason: "invalid_payment_requirements",
      });
    }
    expect((await matchRequirements(ctx, v2({ ...accepted, scheme: "upto" }), provider)).reason).toBe(
      "unsupported_scheme",
    );
    expect((await matchRequirements(ctx, v2({ ...accepted, network: "eip155:137" }), provider)).reason).toBe(
      "invalid_network",
    );
  });

  it("v1 names no asset: every offer is a candidate, on the right scheme and network only", async () => {
    expect((await matchRequirements(ctx, v1("exact", "polygon-amoy"), provider)).candidates).toEqual(offered);
    expect((await matchRequirements(ctx, v1("exact", "polygon"), provider)).reason).toBe("invalid_network");
    expect((await matchRequirements(ctx, v1("upto", "polygon-amoy"), provider)).reason).toBe(
      "unsupported_scheme",
    );
    const none = { ...ctx, requirementsFor: async () => [] };
    expect(await matchRequirements(none, v1("exact", "polygon-amoy"), provider)).toEqual({
      candidates: [],
      reason: "invalid_payment_requirements",
    });
  });
});

describe("x402 rail over HTTP (no offers)", () => {
  let upstream: TestUpstream;
  let bridge: TestBridge;
  beforeAll(async () => {
    upstream = await startTestUpstream();
    bridge = await startOfflineBridge([
      {
        id: "acme",
        upstream_url: `${upstream.url}/api`,
        price_wei: "1000",
        price_usdc_units: "150000",
        merchant_wallet: merchant,
      },
    ]);
  });
  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.seen.length = 0;
  });

  it("an unmatched payment gets a fresh 402 naming the x402 reason, with success: false in the response header", async () => {
    const header = encodeHeader({ x402Version: 1, scheme: "exact", network: "polygon-amoy", payload: exact });
    const response = await fetch(`${bridge.url}/acme/search`, { headers: { "X-PAYMENT": header } });
    expect(response.status).toBe(402);
    const body: Json = await readJson(response);
    expect(body).toMatchObject({ error: "invalid_payment_requirements", code: "x402_payment_invalid" });
    expect(body.accepts).toEqual([]); // no relayer offline: x402 is not offered
    expect(decodeHeader(response.headers.get("x-payment-response")!, "X-PAYMENT-RESPONSE")).toEqual({
      success: false,
      transaction: "",
      network: "polygon-amoy",
      payer,
      errorReason: "invalid_payment_requirements",
      errorMessage: "no matching requirement",
    });
    expect(response.headers.get("payment-required")).toBeTruthy();

    const order = (await readJson(await fetch(`${bridge.url}/acme/search`))).pay_matic.order_id;
    const v2 = encodeHeader({
      x402Version: 2,
      accepted: {
        scheme: "exact",
        network: "eip155:1",
        amount: "1",
        asset: usdc.address,
        payTo: merchant,
        extra: { order_id: order },
      },
      payload: exact,
    });
    const wrongNet = await fetch(`${bridge.url}/acme/search`, { headers: { "PAYMENT-SIGNATURE": v2 } });
    expect(wrongNet.status).toBe(402);
    expect(decodeHeader(wrongNet.headers.get("payment-response")!, "PAYMENT-RESPONSE")).toMatchObject({
      success: false,
      network: "eip155:80002",
      errorReason: "invalid_network",
    });
    expect(upstream.seen).toHaveLength(0);
  });

  it("a v2 payment naming another request's order is 422 order_request_mismatch", async () => {
    const challenge: Json = await readJson(await fetch(`${bridge.url}/acme/cheap`));
    const accepted = {
      scheme: "exact",
      network: "eip155:80002",
      amount: "150000",
      asset: usdc.address,
      payTo: merchant,
      extra: { order_id: challenge.pay_matic.order_id },
    };
    const header = encodeHeader({ x402Version: 2, accepted, payload: exact });
    const other = await fetch(`${bridge.url}/acme/expensive`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(other.status).toBe(422);
    expect((await readJson(other)).code).toBe("order_request_mismatch");
    expect(upstream.seen).toHaveLength(0);
  });

  it("a v2 payment must name this request's challenge in accepted.extra.order_id", async () => {
    const accepted = {
      scheme: "exact",
      network: "eip155:80002",
      amount: "150000",
      asset: usdc.address,
      payTo: merchant,
    };
    for (const extra of [
      undefined,
      { order_id: 7 },
      { order_id: "__proto__" },
      { order_id: newId("order") },
    ]) {
      const header = encodeHeader({ x402Version: 2, accepted: { ...accepted, extra }, payload: exact });
      const response = await fetch(`${bridge.url}/acme/search`, { headers: { "PAYMENT-SIGNATURE": header } });
      expect(response.status).toBe(402);
      expect(await readJson(response)).toMatchObject({
        error: "invalid_payment_requirements",
        code: "x402_payment_invalid",
      });
    }
    expect(upstream.seen).toHaveLength(0);
  });
});
