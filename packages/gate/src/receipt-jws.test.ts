// The node:crypto receipt check against jose's jwtVerify as the oracle (decision "Gate receipt verification without
// jose's verify"): on every crafted token the verifier refuses whatever jose refuses, with the same reason, and
// accepts only what jose accepts. The few tokens jose takes and we refuse (JWS extensions, non-canonical or padded
// base64url) are listed.
import { KeyObject, sign } from "node:crypto";
import { RECEIPT_ALGORITHM, RECEIPT_JWT_TYPE } from "@tollgate/shared/aifp";
import { jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeTollgateApi, startFakeTollgateApi } from "./testing";
import { receiptClaimsProblem, translateJoseError } from "./verdicts";
import { createReceiptVerifier } from "./verifier";

const MERCHANT = "mrch_jwsTestMerchant1";
const RESOURCE = "/v1/jws";
const expectation = { merchantId: MERCHANT, resource: RESOURCE };
const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");
const nowSec = () => Math.floor(Date.now() / 1000);

let api: FakeTollgateApi;
beforeAll(async () => {
  api = await startFakeTollgateApi();
});
afterAll(async () => {
  await api.close();
});

type Mutation = (parts: { header: string; payload: string; signature: string }) => string;

describe("receipt JWS checked with node:crypto, jose as the oracle", () => {
  it("refuses what jose refuses, with jose's reason, and accepts only what jose accepts", async () => {
    const key = [...api.keys.values()].at(-1)!;
    const signer = KeyObject.from(key.privateKey);
    const kid = key.kid;
    const base = api.claims({ aud: MERCHANT, scope: RESOURCE });
    const header = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({ alg: RECEIPT_ALGORITHM, typ: RECEIPT_JWT_TYPE, kid, ...extra });
    /** Signs the given header and payload text (or bytes) as they are, then applies `mutate` to the parts. */
    const token = (headerText: string | Buffer, payload: string | Buffer, mutate?: Mutation) => {
      const h = b64url(headerText);
      const p = b64url(payload);
      const s = sign(null, Buffer.from(`${h}.${p}`), signer).toString("base64url");
      return mutate ? mutate({ header: h, payload: p, signature: s }) : `${h}.${p}.${s}`;
    };
    const claims = (changes: Record<string, unknown>, drop: string[] = []) => {
      const out: Record<string, unknown> = { ...base, ...changes };
      for (const name of drop) delete out[name];
      return JSON.stringify(out);
    };
    const signedText = (h: string, p: string) => {
      const s = sign(null, Buffer.from(`${h}.${p}`), signer).toString("base64url");
      return `${h}.${p}.${s}`;
    };

    const cases: Record<string, string> = {
      valid: token(header(), claims({})),
      "aud array naming the merchant": token(header(), claims({ aud: [MERCHANT] })),
      "aud of another merchant": token(header(), claims({ aud: "mrch_other" })),
      "wrong issuer": token(header(), claims({ iss: "https://evil.example" })),
      expired: token(header(), claims({ exp: nowSec() - 120 })),
      "expired within tolerance": token(header(), claims({ exp: nowSec() - 5 })),
      "nbf in the future": token(header(), claims({ nbf: nowSec() + 600 })),
      "nbf a string": token(header(), claims({ nbf: "soon" })),
      "iat a string": token(header(), claims({ iat: "now" })),
      "exp a string": token(header(), claims({ exp: String(nowSec() + 600) })),
      "quota fractional": token(header(), claims({ quota: 1.5 })),
      "__proto__ member": token(header(), claims({}).replace("{", '{"__proto__":{"admin":true},')),
      "payload an array": token(header(), JSON.stringify([base])),
      "payload not UTF-8": token(header(), Buffer.from([0x7b, 0xff, 0x7d])),
      "header not UTF-8": token(Buffer.from([0x7b, 0xff, 0x7d]), claims({})),
      "header an array": token(JSON.stringify([1]), claims({})),
      "tampered payload": token(
        header(),
        claims({}),
        (t) => `${t.header}.${b64url(claims({ quota: 9e9 }))}.${t.signature}`,
      ),
      "signature of 63 bytes": token(
        header(),
        claims({}),
        (t) => `${t.header}.${t.payload}.${t.signature.slice(0, 84)}`,
      ),
      "signature truncated to 85 chars": token(
        header(),
        claims({}),
        (t) => `${t.header}.${t.payload}.${t.signature.slice(0, 85)}`,
      ),
      "signature empty": token(header(), claims({}), (t) => `${t.header}.${t.payload}.`),
      "signature with a bad character": token(
        header(),
        claims({}),
        (t) => `${t.header}.${t.payload}.${t.signature.slice(0, 85)}*`,
      ),
      "four segments": token(header(), claims({}), (t) => `${t.header}.${t.payload}.${t.signature}.x`),
      "two segments": token(header(), claims({}), (t) => `${t.header}.${t.payload}`),
      "crit with an unknown extension": token(header({ crit: ["exp"], exp: 1 }), claims({})),
    };
    for (const name of ["iss", "aud", "sub", "jti", "iat", "exp"])
      cases[`${name} missing`] = token(header(), claims({}, [name]));
    // Tokens jose accepts and this verifier refuses (stricter by design: one canonical encoding, no JWS extensions).
    const stricter: Record<string, string> = {
      "crit b64 true": token(header({ crit: ["b64"], b64: true }), claims({})),
      "b64 without crit": token(header({ b64: false }), claims({})),
      "non-canonical signature": token(header(), claims({}), (t) => {
        const last = t.signature.at(-1)!;
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        return `${t.header}.${t.payload}.${t.signature.slice(0, 85)}${alphabet[alphabet.indexOf(last) + 1]}`;
      }),
      "padded signature": token(header(), claims({}), (t) => `${t.header}.${t.payload}.${t.signature}==`),
      "whitespace in the payload segment": signedText(
        b64url(header()),
        `${b64url(claims({})).slice(0, 8)} ${b64url(claims({})).slice(8)}`,
      ),
    };

    async function oracle(jwt: string): Promise<string> {
      try {
        const { payload } = await jwtVerify(jwt, key.publicKey, {
          algorithms: [RECEIPT_ALGORITHM],
          typ: RECEIPT_JWT_TYPE,
          issuer: api.url,
          audience: MERCHANT,
          clockTolerance: 30,
          requiredClaims: ["iss", "aud", "sub", "jti", "iat", "exp"],
        });
        return receiptClaimsProblem(payload) ? "claims_invalid" : "ok";
      } catch (error) {
        const refusal = translateJoseError(error);
        if (!refusal || refusal.ok) throw error;
        return refusal.reason;
      }
    }
    const verifier = createReceiptVerifier({ issuer: api.url, jwksUrl: api.jwksUrl, cacheMaxEntries: 0 });
    const ours = async (jwt: string) => {
      const result = await verifier.verify(jwt, expectation);
      return result.ok ? "ok" : result.reason;
    };

    for (const [name, jwt] of Object.entries(cases)) {
      const expected = await oracle(jwt);
      // jose maps an unrecognised crit extension to JOSENotSupported (alg_not_allowed); we name the header.
      const want = name === "crit with an unknown extension" ? "header_not_allowed" : expected;
      if (name === "crit with an unknown extension") expect(expected).not.toBe("ok");
      expect(`${name}: ${await ours(jwt)}`).toBe(`${name}: ${want}`);
    }
    expect(await ours(cases.valid!)).toBe("ok");
    expect(await ours(cases["aud array naming the merchant"]!)).toBe("claims_invalid");
    for (const [name, jwt] of Object.entries(stricter)) {
      expect(`${name}: jose ${await oracle(jwt)}`).toBe(`${name}: jose ok`);
      expect(`${name}: ${await ours(jwt)}`).toMatch(new RegExp(`^${name}: (malformed|header_not_allowed)$`));
    }
  });

  it("accepts only the canonical last character of a signature (A, Q, g, w), and no other spelling", async () => {
    const verifier = createReceiptVerifier({ issuer: api.url, jwksUrl: api.jwksUrl, cacheMaxEntries: 0 });
    const { token } = await api.receipt({ aud: MERCHANT, scope: RESOURCE });
    const body = token.slice(0, -1);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const verdicts = new Map<string, string>();
    for (const last of alphabet) {
      const result = await verifier.verify(`${body}${last}`, expectation);
      verdicts.set(last, result.ok ? "ok" : result.reason);
    }
    const original = token.at(-1)!;
    expect("AQgw").toContain(original);
    for (const [last, verdict] of verdicts) {
      // A canonical spelling of another 64-byte value is a wrong signature; any other last character is malformed.
      const want = last === original ? "ok" : "AQgw".includes(last) ? "signature_invalid" : "malformed";
      expect(`${last}: ${verdict}`).toBe(`${last}: ${want}`);
    }
  });

  it("trusts a header seen under a valid signature for that header only, and never for an unsigned token", async () => {
    const verifier = createReceiptVerifier({ issuer: api.url, jwksUrl: api.jwksUrl, cacheMaxEntries: 0 });
    const good = await api.receipt({ aud: MERCHANT, scope: RESOURCE });
    expect((await verifier.verify(good.token, expectation)).ok).toBe(true);
    const [header, payload] = good.token.split(".") as [string, string, string];
    // Same (known) header, a payload the key never signed: the signature still decides.
    const forgedPayload = b64url(JSON.stringify({ ...good.claims, quota: 9_999_999 }));
    const reused = `${header}.${forgedPayload}.${good.token.split(".")[2]}`;
    expect(await verifier.verify(reused, expectation)).toMatchObject({
      ok: false,
      reason: "signature_invalid",
    });
    // Same header, signed by an unpublished key under the published kid: refused.
    const rogue = await api.addKey({ publish: false });
    const rogueSignature = sign(null, Buffer.from(`${header}.${payload}`), KeyObject.from(rogue.privateKey));
    const rogueToken = `${header}.${payload}.${rogueSignature.toString("base64url")}`;
    expect(await verifier.verify(rogueToken, expectation)).toMatchObject({
      ok: false,
      reason: "signature_invalid",
    });
    // A header refused once is refused every time (refusals are not remembered as known headers).
    const noneHeader = b64url(JSON.stringify({ alg: "none", typ: RECEIPT_JWT_TYPE, kid: "x" }));
    for (let i = 0; i < 3; i += 1) {
      const verdict = await verifier.verify(
        `${noneHeader}.${payload}.${good.token.split(".")[2]}`,
        expectation,
      );
      expect(verdict).toMatchObject({ ok: false, reason: "alg_not_allowed" });
    }
    // The genuine receipt still verifies after all of that.
    expect((await verifier.verify(good.token, expectation)).ok).toBe(true);
  });

  it("gives each of many concurrent verifications its own verdict while the keys are still being fetched", async () => {
    const verifier = createReceiptVerifier({ issuer: api.url, jwksUrl: api.jwksUrl, cacheMaxEntries: 0 });
    const tokens = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api.receipt({ aud: MERCHANT, scope: RESOURCE, quota: i + 1 })),
    );
    // Every other token is tampered (its payload swapped for its neighbour's): the shared scratch buffer must
    // never carry one verification's bytes into another's.
    const inputs = tokens.map(({ token }, i) => {
      if (i % 2 === 0) return token;
      const [h, , sig] = token.split(".") as [string, string, string];
      return `${h}.${tokens[i - 1]!.token.split(".")[1]}.${sig}`;
    });
    const verdicts = await Promise.all(inputs.map((token) => verifier.verify(token, expectation)));
    verdicts.forEach((verdict, i) => {
      if (i % 2 === 0) expect(verdict.ok && verdict.claims.quota).toBe(i + 1);
      else expect(verdict).toMatchObject({ ok: false, reason: "signature_invalid" });
    });
  });
});
