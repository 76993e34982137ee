/**
 * Test helpers for the gate: a stand-in for the two Tollgate API endpoints a gate talks to
 * (`GET /.well-known/jwks.json` and `GET /v1/merchants/{id}`) on real loopback HTTP, and receipt signing with
 * jose exactly as DESIGN.md §6 describes (EdDSA, `typ: aifp-receipt+jwt`, `kid`, the {@link ReceiptClaims}).
 *
 * This is a stand-in, not the API: the real issuer is exercised end to end by the apps/api e2e suite.
 * Not for production use.
 */
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { JWKS_PATH, RECEIPT_ALGORITHM, RECEIPT_JWT_TYPE, type ReceiptClaims } from "@tollgate/shared/aifp";
import { newId } from "@tollgate/shared/ids";
import express, { type Express } from "express";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

// Re-exported for code outside this package (bench/) that cannot resolve these dependencies itself.
export { default as express } from "express";
export * as jose from "jose";

export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface SignOptions {
  /** Key to sign with; default the newest published key. `null` signs with that key but leaves `kid` out. */
  kid?: string | null;
  /** Header `typ`; default `aifp-receipt+jwt`. */
  typ?: string;
  /** Extra protected-header members. */
  header?: Record<string, unknown>;
}

/** How the stand-in JWKS endpoint behaves. */
export type JwksMode = "up" | "error500" | "drop";

export interface FakeTollgateApi {
  /** Base URL; also the receipt issuer. */
  url: string;
  jwksUrl: string;
  /** Requests the JWKS endpoint has seen. */
  jwksRequests: number;
  /** Requests the merchant endpoint has seen. */
  merchantRequests: number;
  jwksMode: JwksMode;
  /** The revocation feed served per merchant id (jti → state, exp); "down" answers 500. */
  revocations: Map<string, Map<string, { state: "suspended" | "revoked"; exp: number }>>;
  feedMode: "up" | "down";
  /** Requests the revocation feed has seen, and how many of them were answered 304. */
  feedRequests: number;
  feedNotModified: number;
  /** tier maps by merchant id, served as `tiers` of the public view. */
  merchants: Map<string, Record<string, string>>;
  keys: Map<string, TestKey>;
  /** Generates a key; published unless `publish: false`. Returns its kid. */
  addKey(options?: { kid?: string; publish?: boolean }): Promise<TestKey>;
  publish(kid: string): void;
  unpublish(kid: string): void;
  /** Default claims for a receipt of `merchantId` on `resource`; override any member. */
  claims(input: Partial<ReceiptClaims> & { aud: string; scope: string }): ReceiptClaims;
  sign(claims: object, options?: SignOptions): Promise<string>;
  /** claims() + sign() */
  receipt(
    input: Partial<ReceiptClaims> & { aud: string; scope: string },
    options?: SignOptions,
  ): Promise<{ token: string; claims: ReceiptClaims }>;
  close(): Promise<void>;
}

/** Starts an Express app on 127.0.0.1 (port 0 unless given); resolves with its URL and a closer. */
export async function listen(app: Express, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = app.listen(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A URL on loopback where nothing listens (a port that was just released). */
export async function deadUrl(): Promise<string> {
  const { url, close } = await listen(express());
  await close();
  return url;
}

/** The stand-in's signing keys: every key made, the published ones, and the newest published (the default signer). */
interface TestKeyring {
  keys: Map<string, TestKey>;
  published: Set<string>;
  newest: string | undefined;
}

/** Starts the stand-in API with one published key. */
export async function startFakeTollgateApi(
  options: { merchants?: Record<string, Record<string, string>> } = {},
): Promise<FakeTollgateApi> {
  const ring: TestKeyring = { keys: new Map(), published: new Set(), newest: undefined };
  const api: FakeTollgateApi = {
    url: "",
    jwksUrl: "",
    jwksRequests: 0,
    merchantRequests: 0,
    jwksMode: "up",
    revocations: new Map(),
    feedMode: "up",
    feedRequests: 0,
    feedNotModified: 0,
    merchants: new Map(Object.entries(options.merchants ?? {})),
    keys: ring.keys,
    addKey: (keyOptions) => addKey(ring, keyOptions),
    publish: (kid) => void ring.published.add(kid),
    unpublish: (kid) => void ring.published.delete(kid),
    claims: (input) => defaultClaims(api.url, input),
    sign: (claims, signOptions) => sign(ring, claims, signOptions),
    async receipt(input, signOptions) {
      const claims = api.claims(input);
      return { token: await api.sign({ ...claims }, signOptions), claims };
    },
    close: async () => undefined,
  };
  const server = await listen(fakeApiApp(api, ring));
  api.url = server.url;
  api.jwksUrl = `${server.url}${JWKS_PATH}`;
  api.close = server.close;
  await api.addKey();
  return api;
}

async function addKey(
  ring: TestKeyring,
  {
    kid = `k_${ring.keys.size + 1}_${Math.random().toString(36).slice(2, 8)}`,
    publish = true,
  }: { kid?: string; publish?: boolean } = {},
): Promise<TestKey> {
  const pair = await generateKeyPair(RECEIPT_ALGORITHM, { crv: "Ed25519", extractable: true });
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: RECEIPT_ALGORITHM, use: "sig" };
  const key = { kid, privateKey: pair.privateKey, publicKey: pair.publicKey, publicJwk };
  ring.keys.set(kid, key);
  if (publish) {
    ring.published.add(kid);
    ring.newest = kid;
  }
  return key;
}

function defaultClaims(
  issuer: string,
  input: Partial<ReceiptClaims> & { aud: string; scope: string },
): ReceiptClaims {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: issuer,
    sub: "0x1111111111111111111111111111111111111111",
    jti: newId("receipt"),
    iat: now,
    exp: now + 3600,
    quote_id: newId("quote"),
    resource: input.scope,
    tier: "standard",
    quota: 10,
    amount: "0.1",
    asset: "USDC",
    network: "polygon",
    chain_id: 137,
    tx_ref: `0x${"ab".repeat(32)}`,
    log_index: 0,
    confirmations: 3,
    economics_profile: "standard",
    ...input,
  };
}

async function sign(
  ring: TestKeyring,
  claims: object,
  { kid, typ = RECEIPT_JWT_TYPE, header = {} }: SignOptions = {},
): Promise<string> {
  const signingKid = kid === null ? ring.newest : (kid ?? ring.newest);
  const key = signingKid ? ring.keys.get(signingKid) : undefined;
  if (!key) throw new Error(`no key ${String(signingKid)}`);
  return new SignJWT(claims as JWTPayload)
    .setProtectedHeader({
      alg: RECEIPT_ALGORITHM,
      typ,
      ...(kid === null ? {} : { kid: key.kid }),
      ...header,
    })
    .sign(key.privateKey);
}

/** The stand-in's routes; each reads the modes and data of `api` per request and counts its requests there. */
function fakeApiApp(api: FakeTollgateApi, ring: TestKeyring): Express {
  const app = express();
  app.get(JWKS_PATH, (req, res) => {
    api.jwksRequests += 1;
    if (api.jwksMode === "drop") {
      req.socket.destroy();
      return;
    }
    if (api.jwksMode === "error500") {
      res.status(500).json({ error: "down" });
      return;
    }
    const { keys, published } = ring;
    res
      .set("Cache-Control", "public, max-age=300")
      .json({ keys: [...published].flatMap((kid) => (keys.has(kid) ? [keys.get(kid)?.publicJwk] : [])) });
  });
  // Stand-in for GET /v1/merchants/{id}/revocations (docs/receipts.md): ETag over the body, 304 on If-None-Match.
  app.get("/v1/merchants/:id/revocations", (req, res) => {
    api.feedRequests += 1;
    if (api.feedMode === "down") {
      res.status(500).end();
      return;
    }
    const listed = api.revocations.get(req.params.id) ?? new Map();
    const body = JSON.stringify({
      merchant_id: req.params.id,
      entries: [...listed].map(([jti, e]) => ({ jti, state: e.state, exp: e.exp })),
    });
    const etag = `"${createHash("sha256").update(body).digest("base64url")}"`;
    res.set({ ETag: etag, "Cache-Control": "public, max-age=5" });
    if (req.get("if-none-match") === etag) {
      api.feedNotModified += 1;
      res.status(304).end();
      return;
    }
    res.type("application/json").send(body);
  });
  // Stand-in for GET /v1/merchants/{id} (public view); only `tiers` matters to the gate.
  app.get("/v1/merchants/:id", (req, res) => {
    api.merchantRequests += 1;
    const tiers = api.merchants.get(req.params.id);
    if (!tiers) {
      res.status(404).type("application/problem+json").json({ code: "merchant_not_found", status: 404 });
      return;
    }
    res.json({
      merchant_id: req.params.id,
      name: "Test merchant",
      pay_to: { evm: "0x2222222222222222222222222222222222222222" },
      settlement_version: "1.2",
      network_mode: "mainnet",
      settlement_chain: "polygon",
      tiers,
    });
  });
  return app;
}
