import { AppError, NETWORKS } from "@tollgate/shared";
import { describe, expect, it } from "vitest";
import { routerConfig } from "../config";
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
  const ctx = {
    config,
    network: "amoy",
    facilitator: { offers: async () => [usdc] },
    chain: () => ({ chainId: 80002 }),
    wireNetwork: (version: 1 | 2) => (version === 1 ? NETWORKS.amoy.x402V1Name : NETWORKS.amoy.caip2),
  } as unknown as BridgeContext;

  it("builds the requirement from either version (v1 maxAmountRequired, v2 amount)", async () => {
    const v1 = await facilitatorRequest(ctx, v1Body());
    expect(v1.requirement).toEqual({
      network: "amoy",
      chainId: 80002,
      token: usdc,
      payTo: merchant,
      amount: 150_000n,
      maxTimeoutSeconds: config.orderTtlSeconds,
    });
    const v2 = await facilitatorRequest(ctx, v2Body({ amount: "7" }));
    expect(v2.requirement).toMatchObject({ amount: 7n, maxTimeoutSeconds: 30 });
    expect(v2.payload).toEqual(exact);
  });

  it("refuses another network or scheme, a token it does not offer, and a payTo that is not its provider", async () => {
    const cases: [unknown, RegExp][] = [
      [v1Body({ network: "polygon" }), /only exact on polygon-amoy/],
      [v2Body({ network: "eip155:137" }), /only exact on eip155:80002/],
      [v2Body({ scheme: "upto" }), /only exact/],
      [v1Body({ asset: randomAddress() }), /not an offered ERC-3009 token/],
      // The relayer pays settlement gas: never for strangers (no public gas faucet).
      [v1Body({ payTo: randomAddress() }), /payTo is not a provider/],
    ];
    for (const [body, detail] of cases) {
      const error = await facilitatorRequest(ctx, body).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("x402_payment_invalid");
      expect((error as AppError).message).toMatch(detail);
    }
  });
});
