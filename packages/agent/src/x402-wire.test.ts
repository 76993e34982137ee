/** x402 wire parsing on the paying side (x402-wire.ts): hostile or malformed 402s are never guessed at. */
import { describe, expect, it } from "vitest";
import { microUsdOf } from "./x402-offers";
import {
  chainIdOfNetwork,
  decodeX402Header,
  encodeX402Header,
  parseX402Challenge,
  settleResponseOf,
} from "./x402-wire";

const PAY_TO = "0x00000000000000000000000000000000000000aa";
const ASSET = "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582";
const v2Accept = { scheme: "exact", network: "eip155:80002", amount: "100000", asset: ASSET, payTo: PAY_TO };
const v1Accept = {
  scheme: "exact",
  network: "polygon-amoy",
  maxAmountRequired: "100000",
  asset: ASSET,
  payTo: PAY_TO,
  extra: { name: "USDC", version: "2" },
};
const with402 = (headers: Record<string, string> = {}) => new Response("{}", { status: 402, headers });

describe("x402 wire (agent side)", () => {
  it("decodes strict padded base64 JSON only", () => {
    expect(decodeX402Header(encodeX402Header({ a: 1 }))).toEqual({ a: 1 });
    const urlSafe = encodeX402Header({ a: "??>>" }).replace(/\+/g, "-").replace(/\//g, "_");
    expect(decodeX402Header(urlSafe.replace(/=+$/, ""))).toBeUndefined();
    expect(decodeX402Header("bm90IGpzb24=")).toBeUndefined(); // "not json"
    expect(decodeX402Header(null)).toBeUndefined();
    expect(decodeX402Header("A".repeat(20_000))).toBeUndefined();
  });

  it("prefers the v2 header over the v1 body and skips entries it cannot read", () => {
    const header = encodeX402Header({
      x402Version: 2,
      accepts: [v2Accept, { scheme: "exact", network: "eip155:80002", amount: "1.5" }],
      extensions: { "payment-identifier": { info: { required: false } } },
    });
    const parsed = parseX402Challenge(with402({ "PAYMENT-REQUIRED": header }), {
      x402Version: 1,
      accepts: [v1Accept],
    });
    expect(parsed?.version).toBe(2);
    expect(parsed?.accepts).toHaveLength(1);
    expect(parsed?.accepts[0]).toMatchObject({ chainId: 80002, amount: 100_000n, payTo: PAY_TO });
    expect(parsed?.extensions).toHaveProperty("payment-identifier");
  });

  it("reads the v1 body when there is no usable v2 header; anything else is not x402", () => {
    const v1 = parseX402Challenge(with402({ "PAYMENT-REQUIRED": "%%%" }), {
      x402Version: 1,
      accepts: [v1Accept],
    });
    expect(v1).toMatchObject({
      version: 1,
      accepts: [{ chainId: 80002, domain: { name: "USDC", version: "2" } }],
    });
    expect(parseX402Challenge(with402(), { error: "Payment Required" })).toBeUndefined();
    expect(parseX402Challenge(with402(), { x402Version: 3, accepts: [] })).toBeUndefined();
    expect(
      parseX402Challenge(with402(), { x402Version: 1, accepts: Array(51).fill(v1Accept) }),
    ).toBeUndefined();
  });

  it("names chains by CAIP-2 (v2) or by the v1 network names it knows", () => {
    expect(chainIdOfNetwork("eip155:137", 2)).toBe(137);
    expect(chainIdOfNetwork("polygon", 1)).toBe(137);
    expect(chainIdOfNetwork("base", 1)).toBe(8453);
    expect(chainIdOfNetwork("base-sepolia", 1)).toBe(84532);
    expect(chainIdOfNetwork("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", 2)).toBeUndefined();
    expect(chainIdOfNetwork("eip155:0x89", 2)).toBeUndefined();
    expect(chainIdOfNetwork("ethereum", 1)).toBeUndefined();
  });

  it("reads the settlement header of the version used", () => {
    const settled = { success: false, transaction: "0xab", errorReason: "settlement_pending" };
    const response = new Response(null, {
      status: 202,
      headers: { "PAYMENT-RESPONSE": encodeX402Header(settled) },
    });
    expect(settleResponseOf(response, 2)).toMatchObject(settled);
    expect(settleResponseOf(response, 1)).toBeUndefined();
  });

  it("counts stablecoin amounts in micro-USD, rounding up", () => {
    expect(microUsdOf(100_000n, 6)).toBe(100_000n);
    expect(microUsdOf(1n, 18)).toBe(1n);
    expect(microUsdOf(10n ** 18n, 18)).toBe(1_000_000n);
    expect(microUsdOf(5n, 2)).toBe(50_000n);
  });
});
