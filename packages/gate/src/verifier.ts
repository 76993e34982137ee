/**
 * Stateless receipt verification for the merchant side (DESIGN.md §6 "Receipt" and "Gate middleware";
 * SPEC §2.5, §5 "Receipt verification"; reliability checklist B3).
 *
 * A receipt is a compact JWS signed by Tollgate with Ed25519. It is accepted only when:
 * - the protected header has `alg: "EdDSA"` (pinned; `none`, HS*, RS*, ES* are refused before any key
 *   lookup), `typ: "aifp-receipt+jwt"` and a `kid`, and carries none of `jku`, `x5u`, `jwk`, `x5c` (we never
 *   follow key URLs or trust embedded keys: RFC 8725 §3.10), nor `crit`/`b64` (no JWS extension);
 * - the signature verifies with the key of that `kid` from the issuer's JWKS (fetched with jose's
 *   `createRemoteJWKSet`: cached, an unknown `kid` refetches at most once per cooldown), checked with node:crypto
 *   and the key made once per `kid` (receipt-jws.ts: strict compact JWS, jose's claim rules);
 * - `iss` is the Tollgate base URL, `aud` the merchant id of the gate, `exp` in the future and `nbf` (if any)
 *   in the past, with an explicit clock tolerance of at most 60 s;
 * - the claims have the shape of {@link ReceiptClaims}, `scope` equals the gate's resource and `tier` the
 *   gate's tier (when given).
 *
 * Verified tokens are kept in a bounded LRU until their `exp` so repeated calls with the same receipt skip
 * the signature check ("cache hit"); a hit still checks audience, scope, tier, expiry and that the signing
 * key is still published.
 */
import { RECEIPT_ALGORITHM, RECEIPT_JWT_TYPE, type ReceiptClaims } from "@tollgate/shared/aifp";
import type { StrictEd25519Key } from "@tollgate/shared/ed25519";
import { AppError } from "@tollgate/shared/errors";
import type { JWTPayload } from "jose";
import {
  type CompactJws,
  parseProtectedHeader,
  receiptPayload,
  splitCompactJws,
  verifyEd25519Jws,
} from "./receipt-jws";
import { createReceiptKeySource, type FetchLike, type ReceiptKeySource } from "./receipt-keys";
import {
  isString,
  REFUSED_HEADER_PARAMS,
  type ReceiptExpectation,
  type ReceiptVerification,
  receiptClaimsProblem,
  refuse,
} from "./verdicts";

/** Largest clock skew we accept between Tollgate and the merchant (checklist B3). */
export const MAX_CLOCK_TOLERANCE_SEC = 60;
/** Receipts longer than this are refused before any parsing (header-size abuse). */
export const MAX_RECEIPT_LENGTH = 4096;

export type { FetchLike } from "./receipt-keys";
export type { ReceiptExpectation, ReceiptFailureReason, ReceiptVerification } from "./verdicts";
export { receiptClaimsProblem } from "./verdicts";

export interface ReceiptVerifierOptions {
  /** Expected `iss`: the Tollgate API base URL (a trailing `/` is ignored). */
  issuer: string;
  /** The issuer's JWKS URL, normally `{issuer}/.well-known/jwks.json`. */
  jwksUrl: string;
  /** Fetch used for the JWKS (tests, proxies, SSRF-safe clients). Default: global `fetch`. */
  fetchImpl?: FetchLike;
  /** Bound of the verified-token cache; 0 disables it. Default 10,000. */
  cacheMaxEntries?: number;
  /** Clock skew tolerance for `exp`/`nbf`, 0 to 60 s. Default 30. */
  clockToleranceSec?: number;
  /** How long fetched keys are used before a refetch (jose `cacheMaxAge`). Default 10 min. */
  jwksCacheMaxAgeMs?: number;
  /** Minimum time between refetches caused by an unknown `kid` (jose `cooldownDuration`). Default 30 s. */
  jwksCooldownMs?: number;
  /** JWKS fetch timeout (jose `timeoutDuration`). Default 5 s. */
  jwksTimeoutMs?: number;
  /**
   * While the JWKS endpoint fails, keys from the last good fetch keep verifying for this long after that fetch.
   * Default 24 h. After it, and with nothing cached at all, verification throws `jwks_unavailable`.
   */
  jwksStaleIfErrorMs?: number;
  /** After a failed JWKS fetch, stale keys are used without retrying for this long. Default 5 s. */
  jwksRetryAfterErrorMs?: number;
  /** Clock in ms, for tests. Default `Date.now`. */
  now?: () => number;
}

export interface ReceiptVerifierStats {
  cacheHits: number;
  verified: number;
  refused: number;
  cacheSize: number;
  jwksFetches: number;
  jwksFetchFailures: number;
}

/** Verifies `AIFP-Receipt` tokens; see the module comment for the rules. */
export interface ReceiptVerifier {
  readonly issuer: string;
  readonly jwksUrl: string;
  /**
   * Resolves with the claims or a typed refusal. Rejects with an {@link AppError} of code `jwks_unavailable`
   * when the keys cannot be obtained (JWKS unreachable and nothing usable cached): callers must fail closed.
   */
  verify(token: string, expect: ReceiptExpectation): Promise<ReceiptVerification>;
  stats(): ReceiptVerifierStats;
  /** Drops every verified token (not the keys). */
  clearTokenCache(): void;
}

interface CachedToken {
  claims: ReceiptClaims;
  kid: string;
  /** ms; the entry is dropped from then on. */
  expiresAtMs: number;
}

/** One verifier's configuration, key source and caches; the functions below take it as their first argument. */
interface VerifierState {
  issuer: string;
  clockToleranceSec: number;
  cacheMaxEntries: number;
  now: () => number;
  keys: ReceiptKeySource;
  counters: Omit<ReceiptVerifierStats, "cacheSize">;
  tokenCache: Map<string, CachedToken>;
  /**
   * Protected headers (the encoded segment) whose signature verified, with their `kid`: Tollgate's
   * receipts share one header per key, so the header is parsed and checked once per key, not per receipt. Only a
   * header under a valid signature enters, so callers cannot fill it; bounded all the same.
   */
  verifiedHeaders: Map<string, string>;
}

const VERIFIED_HEADERS_MAX = 16;

/**
 * Creates a receipt verifier bound to one issuer and its JWKS (DESIGN.md §6, SPEC §5, checklist B3).
 * One verifier serves any number of merchants: the audience is given per call.
 */
export function createReceiptVerifier(options: ReceiptVerifierOptions): ReceiptVerifier {
  const issuer = options.issuer.replace(/\/+$/, "");
  const clockToleranceSec = options.clockToleranceSec ?? 30;
  if (!(clockToleranceSec >= 0 && clockToleranceSec <= MAX_CLOCK_TOLERANCE_SEC)) {
    throw new TypeError(`clockToleranceSec must be between 0 and ${MAX_CLOCK_TOLERANCE_SEC}`);
  }
  const cacheMaxEntries = options.cacheMaxEntries ?? 10_000;
  if (!Number.isSafeInteger(cacheMaxEntries) || cacheMaxEntries < 0) {
    throw new TypeError("cacheMaxEntries must be a non-negative integer");
  }
  const now = options.now ?? Date.now;
  const baseFetch: FetchLike = options.fetchImpl ?? ((input, init) => fetch(input, init));
  const jwksUrl = new URL(options.jwksUrl);

  const counters = { cacheHits: 0, verified: 0, refused: 0, jwksFetches: 0, jwksFetchFailures: 0 };
  const keys = createReceiptKeySource({
    jwksUrl,
    fetchImpl: baseFetch,
    now,
    counters,
    cacheMaxAgeMs: options.jwksCacheMaxAgeMs ?? 10 * 60 * 1000,
    cooldownMs: options.jwksCooldownMs ?? 30_000,
    timeoutMs: options.jwksTimeoutMs ?? 5_000,
    staleIfErrorMs: options.jwksStaleIfErrorMs ?? 24 * 60 * 60 * 1000,
    retryAfterErrorMs: options.jwksRetryAfterErrorMs ?? 5_000,
  });
  const state: VerifierState = {
    issuer,
    clockToleranceSec,
    cacheMaxEntries,
    now,
    keys,
    counters,
    tokenCache: new Map(),
    verifiedHeaders: new Map(),
  };
  return {
    issuer,
    jwksUrl: jwksUrl.href,
    verify: (token, expect) => verify(state, token, expect),
    stats: () => ({ ...counters, cacheSize: state.tokenCache.size }),
    clearTokenCache: () => state.tokenCache.clear(),
  };
}

function verify(
  state: VerifierState,
  token: string,
  expect: ReceiptExpectation,
): Promise<ReceiptVerification> {
  const { counters } = state;
  if (token.length > MAX_RECEIPT_LENGTH) {
    counters.refused += 1;
    return Promise.resolve(refuse("malformed", `receipt longer than ${MAX_RECEIPT_LENGTH} characters`));
  }
  const hit = cachedVerdict(state, token, expect);
  if (hit) return Promise.resolve(hit);
  const count = (result: ReceiptVerification): ReceiptVerification => {
    if (result.ok) counters.verified += 1;
    else counters.refused += 1;
    return result;
  };
  try {
    const result = verifyUncached(state, token, expect);
    return result instanceof Promise ? result.then(count) : Promise.resolve(count(result));
  } catch (error) {
    return Promise.reject(error); // the contract is a promise: never throw synchronously
  }
}

/** The verdict from the token cache, or undefined when the token is not cached (or no longer usable). */
function cachedVerdict(
  state: VerifierState,
  token: string,
  expect: ReceiptExpectation,
): ReceiptVerification | undefined {
  const { tokenCache, keys, counters } = state;
  const cached = tokenCache.get(token);
  if (!cached) return undefined;
  if (cached.expiresAtMs > state.now() && keys.isPublished(cached.kid)) {
    // Keep the key set moving while only cache hits arrive, so retirements are noticed.
    keys.keepFresh();
    tokenCache.delete(token);
    tokenCache.set(token, cached);
    counters.cacheHits += 1;
    const result = checkExpectation(cached.claims, cached.kid, expect, "cache");
    if (!result.ok) counters.refused += 1;
    return result;
  }
  tokenCache.delete(token);
  return undefined;
}

function remember(state: VerifierState, token: string, entry: CachedToken): void {
  const { tokenCache, cacheMaxEntries } = state;
  if (cacheMaxEntries === 0) return;
  if (tokenCache.size >= cacheMaxEntries) {
    // Drop expired entries first, then the least recently used ones (Map keeps insertion order).
    const at = state.now();
    for (const [key, value] of tokenCache) if (value.expiresAtMs <= at) tokenCache.delete(key);
    for (const key of tokenCache.keys()) {
      if (tokenCache.size < cacheMaxEntries) break;
      tokenCache.delete(key);
    }
  }
  tokenCache.set(token, entry);
}

function checkExpectation(
  claims: ReceiptClaims,
  kid: string,
  expect: ReceiptExpectation,
  source: "cache" | "verified",
): ReceiptVerification {
  // For cache hits the audience is re-checked here: one verifier may serve several merchants.
  if (claims.aud !== expect.merchantId) {
    return refuse("audience_mismatch", "receipt was issued for another merchant");
  }
  if (claims.scope !== expect.resource) {
    return refuse(
      "scope_mismatch",
      `receipt is scoped to ${JSON.stringify(claims.scope)}, this resource is ${JSON.stringify(expect.resource)}`,
    );
  }
  if (expect.tier !== undefined && claims.tier !== expect.tier) {
    return refuse(
      "tier_mismatch",
      `receipt is for tier ${claims.tier}, this resource is on tier ${expect.tier}`,
    );
  }
  return { ok: true, claims, kid, source };
}

/** The header's `kid` when it passes the receipt header rules; else the refusal. */
function checkHeader(verifiedHeaders: Map<string, string>, jws: CompactJws): string | ReceiptVerification {
  const known = verifiedHeaders.get(jws.encodedHeader);
  if (known !== undefined) return known;
  const header = parseProtectedHeader(jws.encodedHeader);
  if (!header) return refuse("malformed", "receipt is not a well-formed JWT");
  jws.header = header;
  if (header.alg !== RECEIPT_ALGORITHM) {
    return refuse("alg_not_allowed", `only ${RECEIPT_ALGORITHM} receipts are accepted`);
  }
  if (!isString(header.typ) || header.typ.toLowerCase() !== RECEIPT_JWT_TYPE) {
    return refuse("typ_mismatch", `token typ must be ${RECEIPT_JWT_TYPE}`);
  }
  if (!isString(header.kid) || header.kid === "") return refuse("kid_missing", "receipt header has no kid");
  for (const name of REFUSED_HEADER_PARAMS) {
    if (name in header) return refuse("header_not_allowed", `receipt header must not carry ${name}`);
  }
  return header.kid;
}

/** The signature check and the claims; synchronous, so a known key makes the whole verification awaitless. */
function verifyWithKey(
  state: VerifierState,
  token: string,
  jws: CompactJws,
  kid: string,
  key: StrictEd25519Key,
  expect: ReceiptExpectation,
): ReceiptVerification {
  const { verifiedHeaders, clockToleranceSec } = state;
  const badSignature = verifyEd25519Jws(jws, key);
  if (badSignature) return badSignature;
  if (!verifiedHeaders.has(jws.encodedHeader)) {
    if (verifiedHeaders.size >= VERIFIED_HEADERS_MAX) verifiedHeaders.clear();
    verifiedHeaders.set(jws.encodedHeader, kid);
  }
  const decoded = receiptPayload(jws, {
    issuer: state.issuer,
    audience: expect.merchantId,
    clockToleranceSec,
    nowMs: state.now(),
  });
  if ("ok" in decoded) return decoded;
  const problem = receiptClaimsProblem(decoded.claims as JWTPayload);
  if (problem) return refuse("claims_invalid", problem);
  const claims = decoded.claims as unknown as ReceiptClaims;
  remember(state, token, { claims, kid, expiresAtMs: (claims.exp + clockToleranceSec) * 1000 });
  return checkExpectation(claims, kid, expect, "verified");
}

async function verifyWithKeyLookup(
  state: VerifierState,
  token: string,
  jws: CompactJws,
  kid: string,
  expect: ReceiptExpectation,
): Promise<ReceiptVerification> {
  const key = await state.keys.keyFor(kid, jws);
  return "keyObject" in key ? verifyWithKey(state, token, jws, kid, key, expect) : key;
}

/** The verdict, synchronously when the signing key is already known; a promise when it must be looked up. */
function verifyUncached(
  state: VerifierState,
  token: string,
  expect: ReceiptExpectation,
): ReceiptVerification | Promise<ReceiptVerification> {
  const jws = splitCompactJws(token);
  if ("ok" in jws) return jws;
  const kid = checkHeader(state.verifiedHeaders, jws);
  if (typeof kid !== "string") return kid;
  const key = state.keys.knownKey(kid);
  return key
    ? verifyWithKey(state, token, jws, kid, key, expect)
    : verifyWithKeyLookup(state, token, jws, kid, expect);
}

/** True for the error {@link ReceiptVerifier.verify} throws when no keys can be obtained (answer 503). */
export function isJwksUnavailable(error: unknown): error is AppError {
  return error instanceof AppError && error.code === "jwks_unavailable";
}
