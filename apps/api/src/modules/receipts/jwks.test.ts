import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JWKS_PATH } from "@tollgate/shared";
import { createLocalJWKSet, generateKeyPair, type JSONWebKeySet, jwtVerify, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { ensureReceiptKeyFile, rotateReceiptKey } from "./receipt-key-file";

const JWKS_CACHE_SECONDS = 123;
const RECEIPT_TTL_SECONDS = 3600;
const LEAD_SECONDS = 600;

describe.each(storageDatabaseKinds("pglite"))("GET /.well-known/jwks.json on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-jwks-"));
  const keyFile = join(dataDir, "keys", "receipt-keys.json");
  const env = {
    DATA_DIR: dataDir,
    JWKS_CACHE_SECONDS: String(JWKS_CACHE_SECONDS),
    RECEIPT_TTL_SECONDS: String(RECEIPT_TTL_SECONDS),
  };
  const started = new Date();
  let api: TestApi;
  let kids: { retiring: string; upcoming: string };

  beforeAll(async () => {
    // A key file mid-rotation: the first key signs until the second one activates LEAD_SECONDS from now.
    await ensureReceiptKeyFile(keyFile, started);
    const rotation = await rotateReceiptKey(keyFile, started, LEAD_SECONDS);
    kids = { retiring: rotation.retired[0]!, upcoming: rotation.kid };
    api = await startTestApi(kind, env);
  });
  afterAll(async () => {
    await api?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function fetchJwks(from: TestApi) {
    const res = await from.call("GET", JWKS_PATH);
    expect(res.status).toBe(200);
    return { res, jwks: res.json as unknown as JSONWebKeySet };
  }

  it("happy: publishes the signing key and the upcoming one, cacheable for JWKS_CACHE_SECONDS", async () => {
    const { res, jwks } = await fetchJwks(api);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("cache-control")).toBe(`public, max-age=${JWKS_CACHE_SECONDS}`);
    expect(jwks.keys.map((key) => key.kid).sort()).toEqual([kids.retiring, kids.upcoming].sort());
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    }
  });

  it("happy: what the service signs verifies against the published set", async () => {
    const signing = await api.deps.keys.active(new Date());
    expect(signing.kid).toBe(kids.retiring);
    const token = await new SignJWT({ probe: true })
      .setProtectedHeader({ alg: "EdDSA", kid: signing.kid })
      .sign(signing.privateKey);
    const { jwks } = await fetchJwks(api);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      algorithms: ["EdDSA"],
    });
    expect(payload.probe).toBe(true);
    expect(protectedHeader.kid).toBe(kids.retiring);
  });

  it("security: only public key material is served, and a key outside the set does not verify", async () => {
    const { res, jwks } = await fetchJwks(api);
    for (const key of jwks.keys) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    }
    expect(res.text).not.toMatch(/"d"\s*:/);
    const foreign = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const forged = await new SignJWT({ probe: true })
      .setProtectedHeader({ alg: "EdDSA", kid: kids.retiring })
      .sign(foreign.privateKey);
    await expect(jwtVerify(forged, createLocalJWKSet(jwks), { algorithms: ["EdDSA"] })).rejects.toThrow();
  });

  it("security: a retired key leaves the set after its grace (receipt lifetime + cache lifetime)", async () => {
    const graceEnds =
      started.getTime() + (LEAD_SECONDS + RECEIPT_TTL_SECONDS + JWKS_CACHE_SECONDS) * 1000 + 60_000;
    const later = await startTestApi(kind, env, {
      db: api.deps.db,
      clock: { now: () => new Date(graceEnds) },
    });
    try {
      const { jwks } = await fetchJwks(later);
      expect(jwks.keys.map((key) => key.kid)).toEqual([kids.upcoming]);
      expect((await later.deps.keys.active(new Date(graceEnds))).kid).toBe(kids.upcoming);
    } finally {
      await later.close();
    }
  });

  it("error: other methods are a 404 problem, not a key set", async () => {
    const res = await api.call("POST", JWKS_PATH, { body: {} });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.json.code).toBe("not_found");
    expect(res.json).not.toHaveProperty("keys");
  });
});
