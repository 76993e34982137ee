import { AppError, NETWORKS, newId, type OrderId } from "@tollgate/shared";
import { describe, expect, it } from "vitest";
import { exactRequirements } from "../challenge";
import { routerConfig } from "../config";
import { claimKeys, createMemoryOrderStore } from "../orders";
import { randomAddress } from "../testing";
import type { BridgeContext } from "../wiring";
import type { TokenOffer } from "./facilitator";
import { facilitatorRequest, parseFacilitatorBody } from "./facilitator-request";

const merchant = randomAddress();
const usdc: TokenOffer = {
  symbol: "USDC",
  address: randomAddress(),
  decimals: 6,
  name: "USDC",
  version: "2",
};
const exact = {
  signature: `0x${"00".repeat(65)}`,
  authorization: {
    from: randomAddress(),
    to: merchant,
    value: "150000",
    validAfter: "0",
    validBefore: "9999999999",
    nonce: `0x${"02".repeat(32)}`,
  },
};
const v1Body = (requirements: Record<string, unknown> = {}) => ({
  x402Version: 1,
  paymentPayload: { x402Version: 1, scheme: "exact", network: "polygon-amoy", payload: exact },
  paymentRequirements: {
    scheme: "exact",
    network: "polygon-amoy",
    maxAmountRequired: "150000",
    asset: usdc.address,
    payTo: merchant,
    ...requirements,
  },
});
const v2Body = (requirements: Record<string, unknown> = {}) => {
  const accepted = {
    scheme: "exact",
    network: "eip155:80002",
    amount: "150000",
    asset: usdc.address,
    payTo: merchant,
  };
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted, payload: exact },
    paymentRequirements: { ...accepted, maxTimeoutSeconds: 30, ...requirements },
  };
};

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("parseFacilitatorBody (zod)", () => {
  it("accepts v1 and v2 bodies", () => {
    expect(parseFacilitatorBody(v1Body()).x402Version).toBe(1);
    expect(parseFacilitatorBody(v2Body()).x402Version).toBe(2);
  });

  it("names the first bad member: version, then payload, then requirements; 400 with field errors", () => {
    const cases: [unknown, string][] = [
      [undefined, "x402Version must be 1 or 2"],
      [[], "x402Version must be 1 or 2"],
      [{ ...v1Body(), x402Version: 3 }, "x402Version must be 1 or 2"],
      [{ ...v1Body(), x402Version: "1" }, "x402Version must be 1 or 2"],
      [{ ...v1Body(), paymentPayload: { x402Version: 1 } }, "paymentPayload is not an exact EVM payload"],
      // A v2 payload under a v1 body is not a v1 payload.
      [
        { ...v1Body(), paymentPayload: v2Body().paymentPayload },
        "paymentPayload is not an exact EVM payload",
      ],
      [
        { ...v1Body(), paymentPayload: "x", paymentRequirements: {} },
        "paymentPayload is not an exact EVM payload",
      ],
      [v1Body({ payTo: "0x12" }), "paymentRequirements are malformed"],
      [v2Body({ amount: "1.5" }), "paymentRequirements are malformed"],
    ];
    for (const [body, detail] of cases) {
      const error = refusal(() => parseFacilitatorBody(body));
      expect(error.code, detail).toBe("x402_payload_malformed");
      expect(error.status).toBe(400);
      expect(error.message).toBe(detail);
      expect(error.errors?.length).toBeGreaterThan(0);
    }
  });
});

describe("facilitatorRequest (what this bridge settles)", () => {
  const config = routerConfig([
    { id: "acme", upstream_url: "http://127.0.0.1:9", price_usdc_units: "150000", merchant_wallet: merchant },
  ]);
  const provider = config.providers[0]!;
  const store = createMemoryOrderStore();
  const offered = exactRequirements(provider, NETWORKS.amoy, [usdc], config.orderTtlSeconds);
  const ctx = {
    config,
    network: "amoy",
    store,
    clock: { now: () => new Date() },
    provider: (id: string) => (id === provider.id ? provider : undefined),
    requirementsFor: async () => offered,
    facilitator: { offers: async () => [usdc] },
    chain: () => ({ chainId: 80002 }),
    wireNetwork: (version: 1 | 2) => (version === 1 ? NETWORKS.amoy.x402V1Name : NETWORKS.amoy.caip2),
  } as unknown as BridgeContext;
  async function issue(expiresInMs = 60_000): Promise<OrderId> {
    const id = newId("order");
    const now = Date.now();
    await store.putOrder(
      {
        id,
        provider: "acme",
        network: "amoy",
        requestHash: "h",
        createdAt: now,
        expiresAt: now + expiresInMs,
        payMatic: undefined,
      },
      120_000,
    );
    return id;
  }
  const extra = (order_id: string) => ({ extra: { name: "USDC", version: "2", order_id } });

  it("returns the offered requirement and the order for either version (v1 maxAmountRequired, v2 amount)", async () => {
    const order = await issue();
    const v1 = await facilitatorRequest(ctx, v1Body(extra(order)));
    expect(v1.requirement).toEqual(offered[0]);
    expect(v1).toMatchObject({ orderId: order, provider: "acme", version: 1 });
    const v2 = await facilitatorRequest(ctx, v2Body(extra(order)));
    expect(v2.requirement).toEqual(offered[0]);
    expect(v2.payload).toEqual(exact);
  });

  it("refuses what no issued, unpaid challenge asked for: network, scheme, token, payTo, amount, value 0, order", async () => {
    const order = await issue();
    const expired = await issue(-1);
    const paid = await issue();
    const claim = await store.claim([claimKeys.order(paid)], 60_000);
    if (claim.ok) await store.consume([claimKeys.order(paid)], claim.lease, 60_000);
    const zeroPayload = { ...exact, authorization: { ...exact.authorization, value: "0" } };
    const cases: [unknown, RegExp][] = [
      [v1Body({ network: "polygon", ...extra(order) }), /only exact on polygon-amoy/],
      [v2Body({ network: "eip155:137", ...extra(order) }), /only exact on eip155:80002/],
      [v2Body({ scheme: "upto", ...extra(order) }), /only exact/],
      [v1Body({ asset: randomAddress(), ...extra(order) }), /differ from the challenge/],
      // The relayer pays settlement gas: never for strangers (no public gas faucet).
      [v1Body({ payTo: randomAddress(), ...extra(order) }), /differ from the challenge/],
      [v1Body({ maxAmountRequired: "1", ...extra(order) }), /differ from the challenge/],
      [v2Body({ amount: "7", ...extra(order) }), /differ from the challenge/],
      [v1Body({ maxAmountRequired: "0", ...extra(order) }), /zero-value/],
      [
        { ...v1Body(extra(order)), paymentPayload: { ...v1Body().paymentPayload, payload: zeroPayload } },
        /zero-value/,
      ],
      [v1Body(), /must name a challenge/],
      [v1Body({ extra: { order_id: 7 } }), /must name a challenge/],
      [v1Body(extra(newId("order"))), /unknown or expired/],
      [v1Body(extra(expired)), /unknown or expired/],
      [v1Body(extra(paid)), /already paid/],
      [v1Body(extra("__proto__")), /must name a challenge/],
    ];
    for (const [body, detail] of cases) {
      const error = await facilitatorRequest(ctx, body).catch((e: unknown) => e);
      expect(error, String(detail)).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("x402_payment_invalid");
      expect((error as AppError).status).toBe(402);
      expect((error as AppError).message).toMatch(detail);
    }
  });
});
