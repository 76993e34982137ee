/**
 * Session receipts (decision 0088): signed with the API's own receipt keys, verified with jose against the JWKS the
 * API serves over HTTP, with the issuer, audience and `typ` a merchant pins; altered claims, foreign keys and other
 * token kinds fail; amounts are exact decimal integer strings; bad input is refused before anything is signed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  JWKS_PATH,
  NETWORKS,
  RECEIPT_JWT_TYPE,
  SESSION_RECEIPT_JWT_TYPE,
  ZSessionReceiptClaims,
} from "@tollgate/shared";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import { verifyReceiptSignatureJWS } from "@x402/extensions/offer-receipt";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  generateKeyPair,
  type JSONWebKeySet,
  jwtVerify,
} from "jose";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import type { ReceiptKeyStore } from "./receipt-keys";
import { type SessionReceiptInput, SessionReceiptInputError, signSessionReceipt } from "./session-receipt";
import { signCompactJws, signReceipt } from "./token-signer";

const BASE = NETWORKS.base;
const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

describe.each(storageDatabaseKinds("pglite"))("session receipts on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-session-receipt-"));
  let api: TestApi;
  let served: JSONWebKeySet;

  beforeAll(async () => {
    api = await startTestApi(kind, { DATA_DIR: dataDir });
    const response = await fetch(`${api.baseUrl}${JWKS_PATH}`);
    expect(response.status).toBe(200);
    served = (await response.json()) as JSONWebKeySet;
  }, 300_000);
  afterAll(async () => {
    await api?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const payer = privateKeyToAccount(generatePrivateKey()).address;
  const receiver = privateKeyToAccount(generatePrivateKey()).address;
  const channelConfig = {
    payer,
    payerAuthorizer: payer,
    receiver,
    receiverAuthorizer: receiver,
    token: USDC_BASE,
    withdrawDelay: 900,
    salt: `0x${"00".repeat(32)}` as const,
  };
  const channelId = computeChannelId(channelConfig, BASE.caip2);

  function voucherCall(overrides: Partial<SessionReceiptInput> = {}): SessionReceiptInput {
    return {
      scheme: "batch-settlement",
      issuer: api.baseUrl,
      network: BASE.caip2,
      resourceUrl: `${api.baseUrl}/bridge/shop/search?q=session`,
      payer,
      payTo: receiver,
      asset: USDC_BASE,
      channelId,
      // The third call at 1,000 units: the voucher's ceiling is the new cumulative amount.
      amount: 1_000n,
      chargedCumulativeAmount: 3_000n,
      maxClaimableAmount: 3_000n,
      issuedAt: new Date(),
      ttlSeconds: 3600,
      ...overrides,
    } as SessionReceiptInput;
  }

  /** What a merchant runs: the served key set, `typ`, algorithm, issuer and audience pinned. */
  function merchantVerify(token: string, audience = receiver.toLowerCase(), currentDate?: Date) {
    return jwtVerify(token, createRemoteJWKSet(new URL(`${api.baseUrl}${JWKS_PATH}`)), {
      typ: SESSION_RECEIPT_JWT_TYPE,
      algorithms: ["EdDSA"],
      issuer: api.baseUrl,
      audience,
      ...(currentDate ? { currentDate } : {}),
    });
  }

  it("happy: a voucher call's receipt verifies against the served JWKS with every claim as signed", async () => {
    const input = voucherCall();
    const signed = await signSessionReceipt(api.deps.keys, input);
    const header = decodeProtectedHeader(signed.token);
    expect(header).toEqual({ alg: "EdDSA", typ: SESSION_RECEIPT_JWT_TYPE, kid: signed.kid });
    expect(served.keys.map((key) => key.kid)).toContain(signed.kid);
    expect(signed.kid).toBe((await api.deps.keys.active(input.issuedAt)).kid);

    const { payload } = await merchantVerify(signed.token);
    const iat = Math.floor(input.issuedAt.getTime() / 1000);
    expect(payload).toEqual({
      version: 1,
      iss: api.baseUrl,
      sub: payer.toLowerCase(),
      aud: receiver.toLowerCase(),
      iat,
      exp: iat + 3600,
      network: "eip155:8453",
      resourceUrl: `${api.baseUrl}/bridge/shop/search?q=session`,
      payer,
      payTo: receiver,
      asset: USDC_BASE,
      jti: expect.stringMatching(/^srcpt_[0-9a-f]{32}$/),
      scheme: "batch-settlement",
      channelId: channelId.toLowerCase(),
      amount: "1000",
      chargedCumulativeAmount: "3000",
      maxClaimableAmount: "3000",
      issuedAt: iat,
      economicsProfile: "aifp2-provider-preserving-0-v1",
    });
    expect(payload).toEqual(signed.claims);
    const claims = ZSessionReceiptClaims.parse(payload);
    for (const amount of [claims.amount, claims.chargedCumulativeAmount, claims.maxClaimableAmount]) {
      expect(amount).toMatch(DECIMAL);
    }
  });

  it("happy: an upto settlement's receipt names its transaction and authorization nonce, no channel", async () => {
    const transaction = `0x${"ab".repeat(32)}` as const;
    const signed = await signSessionReceipt(api.deps.keys, {
      ...voucherCall(),
      scheme: "upto",
      authorizationNonce: 2n ** 200n + 7n,
      transaction,
      amount: 640n,
      chargedCumulativeAmount: 640n,
      maxClaimableAmount: 10_000n,
    });
    const { payload } = await merchantVerify(signed.token);
    expect(payload).toMatchObject({
      scheme: "upto",
      authorizationNonce: (2n ** 200n + 7n).toString(),
      transaction,
      amount: "640",
      chargedCumulativeAmount: "640",
      maxClaimableAmount: "10000",
    });
    expect(payload).not.toHaveProperty("channelId");
    expect(ZSessionReceiptClaims.parse(payload).scheme).toBe("upto");
  });

  it("happy: uint256-sized amounts stay exact decimal strings", async () => {
    const max = 2n ** 256n - 1n;
    const signed = await signSessionReceipt(
      api.deps.keys,
      voucherCall({ amount: max - 1n, chargedCumulativeAmount: max, maxClaimableAmount: max }),
    );
    const { payload } = await merchantVerify(signed.token);
    expect(payload.amount).toBe((max - 1n).toString());
    expect(payload.chargedCumulativeAmount).toBe(max.toString());
    expect(BigInt(payload.maxClaimableAmount as string)).toBe(max);
  });

  it("happy: the stock x402 offer-receipt verifier accepts it in the JWS receipt slot", async () => {
    const signed = await signSessionReceipt(api.deps.keys, voucherCall());
    const jwk = served.keys.find((key) => key.kid === signed.kid);
    expect(jwk).toBeDefined();
    // @x402/extensions types its JWK with jose 5; the served key is a plain OKP JWK either way.
    const generic = await verifyReceiptSignatureJWS({ format: "jws", signature: signed.token }, jwk as never);
    expect(generic).toMatchObject({
      version: 1,
      network: "eip155:8453",
      resourceUrl: signed.claims.resourceUrl,
      payer,
      issuedAt: signed.claims.iat,
    });
  });

  it("happy: the same charge keeps its id; the next charge on the channel gets another", async () => {
    const first = await signSessionReceipt(api.deps.keys, voucherCall());
    const again = await signSessionReceipt(
      api.deps.keys,
      voucherCall({ issuedAt: new Date(Date.now() + 5000) }),
    );
    const next = await signSessionReceipt(
      api.deps.keys,
      voucherCall({ chargedCumulativeAmount: 4_000n, maxClaimableAmount: 4_000n }),
    );
    expect(again.claims.jti).toBe(first.claims.jti);
    expect(next.claims.jti).not.toBe(first.claims.jti);
  });

  it("security: altering any claim breaks the signature", async () => {
    const signed = await signSessionReceipt(api.deps.keys, voucherCall());
    const [header, body, signature] = signed.token.split(".");
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString("utf8")) as Record<string, unknown>;
    await expect(merchantVerify(signed.token)).resolves.toBeTruthy();
    for (const [name, value] of Object.entries(claims)) {
      const altered =
        typeof value === "number"
          ? value + 1
          : /^[0-9]+$/.test(String(value))
            ? (BigInt(String(value)) + 1n).toString()
            : `${String(value).slice(0, -1)}${String(value).endsWith("0") ? "1" : "0"}`;
      const forged = Buffer.from(JSON.stringify({ ...claims, [name]: altered })).toString("base64url");
      await expect(merchantVerify(`${header}.${forged}.${signature}`), name).rejects.toThrow();
    }
  });

  it("security: a foreign key under a served kid, another audience or an expired receipt fail", async () => {
    const signed = await signSessionReceipt(api.deps.keys, voucherCall());
    const foreign = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const forged = signCompactJws(decodeProtectedHeader(signed.token), signed.claims, foreign.privateKey);
    await expect(merchantVerify(forged)).rejects.toThrow();
    const other = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    await expect(merchantVerify(signed.token, other)).rejects.toThrow();
    await expect(
      merchantVerify(signed.token, receiver.toLowerCase(), new Date((signed.claims.exp + 1) * 1000)),
    ).rejects.toThrow();
  });

  it("security: neither an AIFP receipt nor a session receipt passes as the other (typ pinned)", async () => {
    const now = Math.floor(Date.now() / 1000);
    const aifp = await signReceipt(api.deps.keys, {
      iss: api.baseUrl,
      aud: receiver.toLowerCase(),
      sub: payer.toLowerCase(),
      jti: "rcpt_1",
      iat: now,
      exp: now + 60,
      quote_id: "qt_1",
      resource: "/r",
      scope: "/r",
      tier: "standard",
      quota: 1,
      amount: "0.1",
      asset: "USDC",
      network: "base",
      chain_id: 8453,
      tx_ref: "0x1",
      log_index: 0,
      confirmations: 1,
      economics_profile: "aifp1-gross-inclusive-100-0-v1",
    });
    await expect(merchantVerify(aifp.token)).rejects.toThrow(/typ/);
    const session = await signSessionReceipt(api.deps.keys, voucherCall());
    const keys = createLocalJWKSet(served);
    await expect(jwtVerify(session.token, keys, { typ: RECEIPT_JWT_TYPE })).rejects.toThrow(/typ/);
  });

  it("error: bad input is refused with the field named, before any key is used", async () => {
    let used = 0;
    const counting: ReceiptKeyStore = {
      ...api.deps.keys,
      active: (at) => {
        used++;
        return api.deps.keys.active(at);
      },
    };
    const cases: [string, Partial<SessionReceiptInput> | Record<string, unknown>][] = [
      ["amount", { amount: -1n }],
      ["maxClaimableAmount", { maxClaimableAmount: 2n ** 256n }],
      ["amount", { amount: 3_001n }],
      ["chargedCumulativeAmount", { chargedCumulativeAmount: 3_001n }],
      ["amount", { amount: 0n, chargedCumulativeAmount: 0n, maxClaimableAmount: 0n }],
      ["channelId", { channelId: "0x1234" }],
      ["network", { network: "base" }],
      ["payer", { payer: "0xnot-an-address" }],
      ["payTo", { payTo: "" }],
      ["asset", { asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda0291" }],
      ["resourceUrl", { resourceUrl: "/bridge/shop" }],
      ["issuedAt", { issuedAt: new Date(Number.NaN) }],
      ["ttlSeconds", { ttlSeconds: 0 }],
      ["issuer", { issuer: "" }],
      ["scheme", { scheme: "exact" }],
      [
        "chargedCumulativeAmount",
        { scheme: "upto", authorizationNonce: 1n, transaction: `0x${"1".repeat(64)}` },
      ],
      [
        "transaction",
        { scheme: "upto", authorizationNonce: 1n, transaction: "0x12", chargedCumulativeAmount: 1_000n },
      ],
      [
        "authorizationNonce",
        {
          scheme: "upto",
          authorizationNonce: -1n,
          transaction: `0x${"1".repeat(64)}`,
          chargedCumulativeAmount: 1_000n,
        },
      ],
    ];
    for (const [field, overrides] of cases) {
      const input = voucherCall(overrides as Partial<SessionReceiptInput>);
      const refusal = await signSessionReceipt(counting, input).catch((error: unknown) => error);
      expect(refusal, field).toBeInstanceOf(SessionReceiptInputError);
      expect(
        (refusal as SessionReceiptInputError).field,
        JSON.stringify(overrides, (_, v) => String(v)),
      ).toBe(field);
    }
    expect(used).toBe(0);
  });
});
