// Receipt verification against a real JWKS over loopback HTTP (checklist B3). The JWKS server is the
// stand-in from ./testing; the real issuer (apps/api) is exercised by the e2e suite later.
import { createHmac, createPublicKey, type JsonWebKey } from "node:crypto";
import express from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deadUrl, type FakeTollgateApi, listen, startFakeTollgateApi } from "./testing";
import { createReceiptVerifier, isJwksUnavailable, type ReceiptVerifierOptions } from "./verifier";

const MERCHANT = "mrch_verifierTestMerchant1";
const OTHER_MERCHANT = "mrch_verifierTestMerchant2";
const RESOURCE = "/v1/search";
const expectation = { merchantId: MERCHANT, resource: RESOURCE, tier: "standard" };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");
const nowSec = () => Math.floor(Date.now() / 1000);

let api: FakeTollgateApi;
beforeAll(async () => {
  api = await startFakeTollgateApi();
});
afterAll(async () => {
  await api.close();
});
afterEach(() => {
  api.jwksMode = "up";
});

function verifierFor(overrides: Partial<ReceiptVerifierOptions> = {}) {
  return createReceiptVerifier({
    issuer: api.url,
    jwksUrl: api.jwksUrl,
    clockToleranceSec: 30,
    ...overrides,
  });
}

async function validToken(overrides: Record<string, unknown> = {}) {
  return (await api.receipt({ aud: MERCHANT, scope: RESOURCE, ...overrides })).token;
}

describe("createReceiptVerifier", () => {
  it("accepts a receipt signed per DESIGN §6 and returns its claims", async () => {
    const { token, claims } = await api.receipt({ aud: MERCHANT, scope: RESOURCE, quota: 7 });
    const result = await verifierFor().verify(token, expectation);
    expect(result).toEqual({ ok: true, claims, kid: expect.any(String), source: "verified" });
  });

  it("serves the second verification of the same token from the cache, re-checking the audience", async () => {
    const verifier = verifierFor();
    const token = await validToken();
    expect((await verifier.verify(token, expectation)).ok).toBe(true);
    const second = await verifier.verify(token, expectation);
    expect(second).toMatchObject({ ok: true, source: "cache" });
    expect(verifier.stats()).toMatchObject({ cacheHits: 1, verified: 1, cacheSize: 1 });
    // the cached token is still bound to its audience and scope
    expect(await verifier.verify(token, { ...expectation, merchantId: OTHER_MERCHANT })).toMatchObject({
      ok: false,
      reason: "audience_mismatch",
    });
    expect(await verifier.verify(token, { ...expectation, resource: "/v1/other" })).toMatchObject({
      ok: false,
      reason: "scope_mismatch",
    });
  });

  it("keeps the token cache bounded", async () => {
    const verifier = verifierFor({ cacheMaxEntries: 3 });
    for (let i = 0; i < 6; i += 1) await verifier.verify(await validToken(), expectation);
    expect(verifier.stats().cacheSize).toBe(3);
  });

  it("refuses a cached token once it expires", async () => {
    let clock = Date.now();
    const verifier = verifierFor({ now: () => clock, clockToleranceSec: 0 });
    const token = await validToken({ exp: nowSec() + 60 });
    expect((await verifier.verify(token, expectation)).ok).toBe(true);
    clock += 61_000;
    expect(await verifier.verify(token, expectation)).toMatchObject({ ok: false, reason: "expired" });
  });

  it("refuses a receipt for another merchant (cross-merchant replay)", async () => {
    const token = await validToken({ aud: OTHER_MERCHANT });
    expect(await verifierFor().verify(token, expectation)).toMatchObject({
      ok: false,
      reason: "audience_mismatch",
    });
  });

  it("refuses an array audience even if it names this merchant", async () => {
    const claims = api.claims({ aud: MERCHANT, scope: RESOURCE });
    const token = await api.sign({ ...claims, aud: [MERCHANT, OTHER_MERCHANT] });
    expect(await verifierFor().verify(token, expectation)).toMatchObject({
      ok: false,
      reason: "claims_invalid",
    });
  });

  it("refuses a receipt scoped to another resource or tier", async () => {
    const verifier = verifierFor();
    expect(await verifier.verify(await validToken({ scope: "/v1/other" }), expectation)).toMatchObject({
      ok: false,
      reason: "scope_mismatch",
    });
    expect(await verifier.verify(await validToken({ tier: "premium" }), expectation)).toMatchObject({
      ok: false,
      reason: "tier_mismatch",
    });
  });

  it("refuses a wrong issuer", async () => {
    const token = await validToken({ iss: "https://evil.example" });
    expect(await verifierFor().verify(token, expectation)).toMatchObject({
      ok: false,
      reason: "issuer_mismatch",
    });
  });

  it("refuses an expired receipt beyond the clock tolerance and accepts one within it", async () => {
    const verifier = verifierFor({ clockToleranceSec: 30 });
    expect(await verifier.verify(await validToken({ exp: nowSec() - 40 }), expectation)).toMatchObject({
      ok: false,
      reason: "expired",
    });
    expect((await verifier.verify(await validToken({ exp: nowSec() - 10 }), expectation)).ok).toBe(true);
  });

  it("refuses a receipt whose nbf is in the future", async () => {
    const token = await validToken({ nbf: nowSec() + 600 });
    expect(await verifierFor().verify(token, expectation)).toMatchObject({
      ok: false,
      reason: "not_yet_valid",
    });
  });

  it("refuses a clock tolerance above 60 s", () => {
    expect(() => verifierFor({ clockToleranceSec: 61 })).toThrow(/clockToleranceSec/);
  });

  it("refuses a tampered payload", async () => {
    const token = await validToken({ quota: 1 });
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as Record<string, unknown>;
    const tampered = `${header}.${b64url(JSON.stringify({ ...claims, quota: 1_000_000 }))}.${signature}`;
    expect(await verifierFor().verify(tampered, expectation)).toMatchObject({
      ok: false,
      reason: "signature_invalid",
    });
  });

  it("refuses alg none", async () => {
    const claims = api.claims({ aud: MERCHANT, scope: RESOURCE });
    const kid = [...api.keys.keys()][0];
    const header = b64url(JSON.stringify({ alg: "none", typ: "aifp-receipt+jwt", kid }));
    const token = `${header}.${b64url(JSON.stringify(claims))}.`;
    expect(await verifierFor().verify(token, expectation)).toMatchObject({
      ok: false,
      reason: "alg_not_allowed",
    });
  });

  it("refuses HS256 signed with the public key bytes (raw, JWK and PEM)", async () => {
    const claims = api.claims({ aud: MERCHANT, scope: RESOURCE });
    const key = [...api.keys.values()][0]!;
    const secrets = [
      Buffer.from(key.publicJwk.x ?? "", "base64url"),
      Buffer.from(JSON.stringify(key.publicJwk)),
      Buffer.from(
        createPublicKey({ key: key.publicJwk as JsonWebKey, format: "jwk" }).export({
          type: "spki",
          format: "pem",
        }),
      ),
    ];
    const verifier = verifierFor();
    for (const secret of secrets) {
      const input = `${b64url(JSON.stringify({ alg: "HS256", typ: "aifp-receipt+jwt", kid: key.kid }))}.${b64url(JSON.stringify(claims))}`;
      const token = `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
      expect(await verifier.verify(token, expectation)).toMatchObject({
        ok: false,
        reason: "alg_not_allowed",
      });
    }
  });

  it("refuses a published small-order key with R = identity, S = 0, and that signature under a real key (strict Ed25519)", async () => {
    // The identity point as a published key: node:crypto alone verifies R = identity, S = 0 under it for any token.
    const identity = Buffer.from([1, ...new Array<number>(31).fill(0)]);
    const forgedSignature = b64url(Buffer.concat([identity, Buffer.alloc(32)]));
    const real = [...api.keys.values()][0]!;
    const kid = "k_identity_point";
    api.keys.set(kid, {
      ...real,
      kid,
      publicJwk: {
        kty: "OKP",
        crv: "Ed25519",
        x: identity.toString("base64url"),
        kid,
        alg: "EdDSA",
        use: "sig",
      },
    });
    api.publish(kid);
    try {
      const claims = api.claims({ aud: MERCHANT, scope: RESOURCE });
      const forged = (signingKid: string) =>
        `${b64url(JSON.stringify({ alg: "EdDSA", typ: "aifp-receipt+jwt", kid: signingKid }))}.${b64url(JSON.stringify(claims))}.${forgedSignature}`;
      const verifier = verifierFor();
      expect(await verifier.verify(forged(kid), expectation)).toMatchObject({
        ok: false,
        reason: "kid_unknown",
      });
      expect(await verifier.verify(forged(real.kid), expectation)).toMatchObject({
        ok: false,
        reason: "signature_invalid",
      });
      expect((await verifier.verify(await validToken(), expectation)).ok).toBe(true);
    } finally {
      api.unpublish(kid);
      api.keys.delete(kid);
    }
  });

  it("refuses a wrong typ, e.g. a plain JWT or an access token offered as a receipt", async () => {
    const verifier = verifierFor();
    for (const typ of ["JWT", "at+jwt", "aifp-settlement-call+jws"]) {
      const { token } = await api.receipt({ aud: MERCHANT, scope: RESOURCE }, { typ });
      expect(await verifier.verify(token, expectation)).toMatchObject({ ok: false, reason: "typ_mismatch" });
    }
    const noTyp = await api.sign(api.claims({ aud: MERCHANT, scope: RESOURCE }), {
      header: { typ: undefined },
    });
    expect(await verifier.verify(noTyp, expectation)).toMatchObject({ ok: false, reason: "typ_mismatch" });
  });

  it("refuses a receipt without kid", async () => {
    const { token } = await api.receipt({ aud: MERCHANT, scope: RESOURCE }, { kid: null });
    expect(await verifierFor().verify(token, expectation)).toMatchObject({
      ok: false,
      reason: "kid_missing",
    });
  });

  it("never follows jku/x5u and refuses headers carrying them or an embedded jwk", async () => {
    let keyServerHits = 0;
    const keyApp = express();
    keyApp.use((_req, res) => {
      keyServerHits += 1;
      res.json({ keys: [] });
    });
    const keyServer = await listen(keyApp);
    try {
      const verifier = verifierFor();
      const key = [...api.keys.values()][0]!;
      for (const header of [
        { jku: `${keyServer.url}/jwks` },
        { x5u: `${keyServer.url}/cert` },
        { jwk: key.publicJwk },
      ]) {
        const { token } = await api.receipt({ aud: MERCHANT, scope: RESOURCE }, { header });
        expect(await verifier.verify(token, expectation)).toMatchObject({
          ok: false,
          reason: "header_not_allowed",
        });
      }
      expect(keyServerHits).toBe(0);
    } finally {
      await keyServer.close();
    }
  });

  it("refuses garbage and oversized tokens without fetching keys", async () => {
    const before = api.jwksRequests;
    const verifier = verifierFor();
    for (const token of ["", "abc", "a.b.c", "x".repeat(5000), "eyJhbGciOiJFZERTQSJ9.e30"]) {
      expect((await verifier.verify(token, expectation)).ok).toBe(false);
    }
    expect(api.jwksRequests).toBe(before);
  });

  it("refuses receipts missing claims of ReceiptClaims or with a non-integer quota", async () => {
    const verifier = verifierFor();
    const { quote_id: _omitted, ...withoutQuote } = api.claims({ aud: MERCHANT, scope: RESOURCE });
    expect(await verifier.verify(await api.sign(withoutQuote), expectation)).toMatchObject({
      ok: false,
      reason: "claims_invalid",
    });
    const fractional = await api.sign({ ...api.claims({ aud: MERCHANT, scope: RESOURCE }), quota: 1.5 });
    expect(await verifier.verify(fractional, expectation)).toMatchObject({
      ok: false,
      reason: "claims_invalid",
    });
  });
});

describe("JWKS rotation and availability", () => {
  it("an unknown kid triggers exactly one refetch, then the rotated-in key verifies", async () => {
    const verifier = verifierFor({ jwksCooldownMs: 100 });
    expect((await verifier.verify(await validToken(), expectation)).ok).toBe(true);
    const fetchesAfterWarmup = api.jwksRequests;
    await sleep(150); // past the cooldown measured from the warm-up fetch
    const rotated = await api.addKey();
    const result = await verifier.verify(await validToken(), expectation);
    expect(result).toMatchObject({ ok: true, kid: rotated.kid, source: "verified" });
    expect(api.jwksRequests - fetchesAfterWarmup).toBe(1);
  });

  it("a flood of unknown kids causes at most one refetch per cooldown", async () => {
    const verifier = verifierFor({ jwksCooldownMs: 200 });
    expect((await verifier.verify(await validToken(), expectation)).ok).toBe(true);
    await sleep(250);
    const unpublished = await api.addKey({ publish: false });
    const before = api.jwksRequests;
    const tokens = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.receipt({ aud: MERCHANT, scope: RESOURCE }, { kid: unpublished.kid }),
      ),
    );
    const results = await Promise.all(tokens.map(({ token }) => verifier.verify(token, expectation)));
    expect(results.every((r) => !r.ok && r.reason === "kid_unknown")).toBe(true);
    expect(api.jwksRequests - before).toBe(1);
    // still inside the cooldown: no further fetch
    expect(await verifier.verify(tokens[0]!.token, expectation)).toMatchObject({
      ok: false,
      reason: "kid_unknown",
    });
    expect(api.jwksRequests - before).toBe(1);
  });

  it("old and new keys both verify while both are published (grace period)", async () => {
    const old = await api.addKey();
    const next = await api.addKey();
    const verifier = verifierFor();
    const oldToken = (await api.receipt({ aud: MERCHANT, scope: RESOURCE }, { kid: old.kid })).token;
    const newToken = (await api.receipt({ aud: MERCHANT, scope: RESOURCE }, { kid: next.kid })).token;
    expect(await verifier.verify(oldToken, expectation)).toMatchObject({ ok: true, kid: old.kid });
    expect(await verifier.verify(newToken, expectation)).toMatchObject({ ok: true, kid: next.kid });
  });

  it("a retired key removed from the JWKS is refused, even for a token already in the cache", async () => {
    const retiring = await api.addKey();
    const verifier = verifierFor({ jwksCacheMaxAgeMs: 100, jwksCooldownMs: 100 });
    const cachedToken = await validToken();
    expect(await verifier.verify(cachedToken, expectation)).toMatchObject({ ok: true, kid: retiring.kid });
    api.unpublish(retiring.kid);
    const successor = await api.addKey();
    await sleep(150);
    // a fresh token with the successor key forces the refetch that learns about the retirement
    expect(await verifier.verify(await validToken(), expectation)).toMatchObject({
      ok: true,
      kid: successor.kid,
    });
    expect(await verifier.verify(cachedToken, expectation)).toMatchObject({
      ok: false,
      reason: "kid_unknown",
    });
    const freshOld = await api.receipt({ aud: MERCHANT, scope: RESOURCE }, { kid: retiring.kid });
    expect(await verifier.verify(freshOld.token, expectation)).toMatchObject({
      ok: false,
      reason: "kid_unknown",
    });
  });

  it("cache hits alone eventually notice a retired key (background refresh)", async () => {
    const retiring = await api.addKey();
    const verifier = verifierFor({ jwksCacheMaxAgeMs: 100 });
    const token = await validToken();
    expect((await verifier.verify(token, expectation)).ok).toBe(true);
    api.unpublish(retiring.kid);
    await api.addKey();
    await sleep(150);
    expect(await verifier.verify(token, expectation)).toMatchObject({ ok: true, source: "cache" }); // kicks a refresh
    await sleep(100);
    expect(await verifier.verify(token, expectation)).toMatchObject({ ok: false, reason: "kid_unknown" });
  });

  for (const mode of ["drop", "error500"] as const) {
    it(`with the JWKS endpoint down (${mode}) and keys cached, receipts still verify`, async () => {
      const verifier = verifierFor({ jwksCacheMaxAgeMs: 50 });
      expect((await verifier.verify(await validToken(), expectation)).ok).toBe(true);
      api.jwksMode = mode;
      await sleep(80); // the cached set is now stale: jose wants to refetch
      const before = api.jwksRequests;
      const result = await verifier.verify(await validToken(), expectation);
      expect(result).toMatchObject({ ok: true, source: "verified" });
      expect(api.jwksRequests - before).toBe(1); // it did try
      expect(verifier.stats().jwksFetchFailures).toBe(1);
      // and does not hammer the endpoint on every request while it is down
      for (let i = 0; i < 5; i += 1)
        expect((await verifier.verify(await validToken(), expectation)).ok).toBe(true);
      expect(api.jwksRequests - before).toBe(1);
    });
  }

  it("a cold verifier with the JWKS endpoint unreachable fails closed with jwks_unavailable", async () => {
    const url = await deadUrl();
    const verifier = createReceiptVerifier({ issuer: api.url, jwksUrl: `${url}/.well-known/jwks.json` });
    const error = await verifier.verify(await validToken(), expectation).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJwksUnavailable(error)).toBe(true);
  });

  it("a cold verifier with the JWKS endpoint answering 500 fails closed with jwks_unavailable", async () => {
    api.jwksMode = "error500";
    const error = await verifierFor()
      .verify(await validToken(), expectation)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isJwksUnavailable(error)).toBe(true);
  });
});
