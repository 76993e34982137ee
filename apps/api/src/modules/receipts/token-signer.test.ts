import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RECEIPT_ALGORITHM, RECEIPT_JWT_TYPE, SETTLEMENT_CALL_JWS_TYPE } from "@tollgate/shared";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { ensureReceiptKeyFile, fileReceiptKeyStore } from "./receipt-key-file";
import { signCompactJws, signReceipt, signSettlementCall } from "./token-signer";

const now = new Date("2026-05-01T12:00:00Z");
const iat = Math.floor(now.getTime() / 1000);
const receiptClaims = {
  iss: "http://127.0.0.1:3000",
  aud: "mrch_test1234",
  sub: "0xabc",
  jti: "rcpt_1",
  iat,
  exp: iat + 3600,
  quote_id: "qt_1",
  resource: "/r",
  scope: "/r",
  tier: "standard",
  quota: 1,
  amount: "0.1",
  asset: "USDC",
  network: "amoy",
  chain_id: 80002,
  tx_ref: "0x1",
  log_index: 0,
  confirmations: 1,
  economics_profile: "aifp1-gross-inclusive-100-0-v1",
};

describe("token signer (node:crypto compact JWS)", () => {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-signer-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "keys.json");

  async function store() {
    await ensureReceiptKeyFile(path, now);
    return fileReceiptKeyStore(path, { graceMs: 0 });
  }

  it("signs a receipt byte for byte as jose's SignJWT does, and jose verifies it", async () => {
    const keys = await store();
    const key = await keys.active(now);
    const { token, kid } = await signReceipt(keys, receiptClaims);
    const { iss, aud, sub, jti, iat: _iat, exp, ...rest } = receiptClaims;
    const expected = await new SignJWT({ ...rest })
      .setProtectedHeader({ alg: RECEIPT_ALGORITHM, typ: RECEIPT_JWT_TYPE, kid: key.kid })
      .setIssuer(iss)
      .setAudience(aud)
      .setSubject(sub)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(key.privateKey);
    expect(token).toBe(expected);
    expect(kid).toBe(key.kid);
    const { payload, protectedHeader } = await jwtVerify(
      token,
      createLocalJWKSet({ keys: keys.publicJwks(now) }),
      {
        typ: RECEIPT_JWT_TYPE,
        audience: "mrch_test1234",
        currentDate: now,
      },
    );
    expect(protectedHeader).toEqual({ alg: "EdDSA", typ: RECEIPT_JWT_TYPE, kid: key.kid });
    expect(payload).toEqual(receiptClaims);
  });

  it("signs a settlement call as jose does, audience the payer in lower case", async () => {
    const keys = await store();
    const key = await keys.active(now);
    const claims = {
      quote_id: "qt_1",
      merchant_id: "mrch_1",
      payer: "0xA0Ee7A142d267C1f36714E4a8F75612F20a79720",
      chain_id: 80002,
      to: "0x1",
      data: "0x",
      value: "0",
      approval: undefined,
      amount_atomic: "100000",
      asset: "USDC",
      expires_at: new Date(now.getTime() + 300_000).toISOString(),
      resource: "/r",
      tier: "standard",
      units: 1,
      unit_price: "0.1",
      amount: "0.1",
      rate: undefined,
    };
    const token = await signSettlementCall(keys, claims, "http://127.0.0.1:3000", now);
    const expected = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: RECEIPT_ALGORITHM, typ: SETTLEMENT_CALL_JWS_TYPE, kid: key.kid })
      .setIssuer("http://127.0.0.1:3000")
      .setAudience(claims.payer.toLowerCase())
      .setIssuedAt(iat)
      .setExpirationTime(iat + 300)
      .sign(key.privateKey);
    expect(token).toBe(expected);
    expect(decodeProtectedHeader(token).typ).toBe(SETTLEMENT_CALL_JWS_TYPE);
  });

  it("a token whose payload is altered no longer verifies", async () => {
    const keys = await store();
    const key = await keys.active(now);
    const token = signCompactJws({ alg: "EdDSA", kid: key.kid }, { sub: "a", exp: iat + 60 }, key.privateKey);
    const [header, , signature] = token.split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: "b", exp: iat + 60 })).toString("base64url")}.${signature}`;
    const jwks = createLocalJWKSet({ keys: keys.publicJwks(now) });
    await expect(jwtVerify(token, jwks, { currentDate: now })).resolves.toBeTruthy();
    await expect(jwtVerify(forged, jwks, { currentDate: now })).rejects.toThrow();
  });

  it("refuses a date that is not a finite number of seconds", async () => {
    const keys = await store();
    await expect(signReceipt(keys, { ...receiptClaims, exp: Number.NaN })).rejects.toThrow(TypeError);
  });
});
