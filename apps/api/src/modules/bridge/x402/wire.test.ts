import { AppError } from "@tollgate/shared";
import { describe, expect, it } from "vitest";
import { decodeHeader, encodeHeader, parsePaymentHeaders } from "./wire";

const payload = {
  signature: `0x${"ab".repeat(65)}`,
  authorization: {
    from: `0x${"11".repeat(20)}`,
    to: `0x${"22".repeat(20)}`,
    value: "150000",
    validAfter: "0",
    validBefore: "9999999999",
    nonce: `0x${"33".repeat(32)}`,
  },
};

describe("x402 header encoding (x402-wire e.1)", () => {
  it("round-trips standard padded base64 JSON", () => {
    const header = encodeHeader({ a: "ü", b: [1] });
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(decodeHeader(header, "X")).toEqual({ a: "ü", b: [1] });
  });

  it.each([
    ["base64url alphabet", encodeHeader({ q: "???>>>" }).replace(/\+/g, "-").replace(/\//g, "_")],
    ["missing padding", "eyJhIjoxfQ"],
    ["whitespace inside", "eyJh IjoxfQ=="],
    ["too much padding", "eyJhIjoxfQ==="],
    ["empty", ""],
    ["not JSON", Buffer.from("not json").toString("base64")],
  ])("rejects %s with 400 x402_payload_malformed", (_name, header) => {
    try {
      decodeHeader(header, "X-PAYMENT");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("x402_payload_malformed");
      expect((error as AppError).status).toBe(400);
    }
  });

  it("prefers PAYMENT-SIGNATURE (v2) over X-PAYMENT (v1) and validates the shape", () => {
    const v1 = encodeHeader({ x402Version: 1, scheme: "exact", network: "polygon-amoy", payload });
    const accepted = {
      scheme: "exact",
      network: "eip155:80002",
      amount: "1",
      asset: payload.authorization.to,
      payTo: payload.authorization.to,
    };
    const v2 = encodeHeader({ x402Version: 2, accepted, payload });
    const headers: Record<string, string> = { "X-PAYMENT": v1, "PAYMENT-SIGNATURE": v2 };
    expect(parsePaymentHeaders((name) => headers[name])?.version).toBe(2);
    expect(parsePaymentHeaders((name) => (name === "X-PAYMENT" ? v1 : undefined))?.version).toBe(1);
    expect(parsePaymentHeaders(() => undefined)).toBeUndefined();
    const wrongVersion = encodeHeader({ x402Version: 2, scheme: "exact", network: "polygon-amoy", payload });
    expect(() => parsePaymentHeaders((name) => (name === "X-PAYMENT" ? wrongVersion : undefined))).toThrow(
      AppError,
    );
    const badNonce = encodeHeader({
      x402Version: 1,
      scheme: "exact",
      network: "polygon-amoy",
      payload: { ...payload, authorization: { ...payload.authorization, nonce: "0x12" } },
    });
    expect(() => parsePaymentHeaders((name) => (name === "X-PAYMENT" ? badNonce : undefined))).toThrow(
      AppError,
    );
  });
});
