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
import { KeyObject, type webcrypto } from "node:crypto";
import { RECEIPT_ALGORITHM, RECEIPT_JWT_TYPE, type ReceiptClaims } from "@tollgate/shared/aifp";
import { AppError } from "@tollgate/shared/errors";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { type CompactJws, parseCompactJws, receiptPayload, verifyEd25519Jws } from "./receipt-jws";
import {
  isKeyLookupVerdict,
  isString,
  REFUSED_HEADER_PARAMS,
  type ReceiptExpectation,
  type ReceiptVerification,
  receiptClaimsProblem,
  refuse,
  translateJoseError,
} from "./verdicts";

/** Largest clock skew we accept between Tollgate and the merchant (checklist B3). */
export const MAX_CLOCK_TOLERANCE_SEC = 60;
/** Receipts longer than this are refused before any parsing (header-size abuse). */
export const MAX_RECEIPT_LENGTH = 4096;

export type { ReceiptExpectation, ReceiptFailureReason, ReceiptVerification } from "./verdicts";
export { receiptClaimsProblem } from "./verdicts";

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

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
  const staleIfErrorMs = options.jwksStaleIfErrorMs ?? 24 * 60 * 60 * 1000;
  const retryAfterErrorMs = options.jwksRetryAfterErrorMs ?? 5_000;
  const now = options.now ?? Date.now;
  const baseFetch: FetchLike = options.fetchImpl ?? ((input, init) => fetch(input, init));
  const jwksUrl = new URL(options.jwksUrl);

  const counters = { cacheHits: 0, verified: 0, refused: 0, jwksFetches: 0, jwksFetchFailures: 0 };
  /** Key ids of the last JWKS document we received; `undefined` until the first good fetch. */
  let publishedKids: Set<string> | undefined;
  let lastGoodFetchAt = Number.NEGATIVE_INFINITY;
  let lastFailureAt = Number.NEGATIVE_INFINITY;
  /** Local key set built from the last good document, used while the endpoint fails. */
  let staleKeys: { generation: number; getKey: ReturnType<typeof createLocalJWKSet> } | undefined;
  let generation = 0;

  // Our fetch wrapper sees every JWKS document jose receives: it records which kids are published (so a
  // cache hit can tell that its key was retired) and when the last good fetch happened.
  const observingFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    counters.jwksFetches += 1;
    let response: Response;
    try {
      response = await baseFetch(input, { ...init, redirect: "manual" });
    } catch (error) {
      counters.jwksFetchFailures += 1;
      lastFailureAt = now();
      throw error;
    }
    if (response.status !== 200) {
      counters.jwksFetchFailures += 1;
      lastFailureAt = now();
      return response; // jose refuses non-200 itself
    }
    const text = await response.text();
    try {
      const parsed = JSON.parse(text) as { keys?: unknown };
      if (Array.isArray(parsed.keys)) {
        publishedKids = new Set(
          parsed.keys.flatMap((key: unknown) =>
            key && typeof key === "object" && isString((key as { kid?: unknown }).kid)
              ? [(key as { kid: string }).kid]
              : [],
          ),
        );
        lastGoodFetchAt = now();
        generation += 1;
      }
    } catch {
      counters.jwksFetchFailures += 1;
      lastFailureAt = now();
    }
    return new Response(text, { status: response.status, headers: response.headers });
  };

  const remote = createRemoteJWKSet(jwksUrl, {
    cacheMaxAge: options.jwksCacheMaxAgeMs ?? 10 * 60 * 1000,
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
    timeoutDuration: options.jwksTimeoutMs ?? 5_000,
    [customFetch]: observingFetch,
  });

  function staleGetKey(): ReturnType<typeof createLocalJWKSet> | undefined {
    if (now() - lastGoodFetchAt > staleIfErrorMs) return undefined;
    const jwks = remote.jwks() as JSONWebKeySet | undefined;
    if (!jwks) return undefined;
    if (!staleKeys || staleKeys.generation !== generation) {
      staleKeys = { generation, getKey: createLocalJWKSet(jwks) };
    }
    return staleKeys.getKey;
  }

  const getKey: JWTVerifyGetKey = async (header, token) => {
    // Endpoint failing recently and jose would refetch: go straight to the keys we have.
    if (!remote.fresh && now() - lastFailureAt < retryAfterErrorMs) {
      const stale = staleGetKey();
      if (stale) return stale(header, token);
    }
    try {
      return await remote(header, token);
    } catch (error) {
      if (isKeyLookupVerdict(error)) throw error;
      const stale = staleGetKey();
      if (stale) return stale(header, token);
      throw new AppError("jwks_unavailable", "receipt signing keys could not be fetched", { cause: error });
    }
  };

  const tokenCache = new Map<string, CachedToken>();

  function remember(token: string, entry: CachedToken) {
    if (cacheMaxEntries === 0) return;
    if (tokenCache.size >= cacheMaxEntries) {
      // Drop expired entries first, then the least recently used ones (Map keeps insertion order).
      const at = now();
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

  /**
   * node:crypto keys by `kid`, made once from the key jose's JWKS set selected (issue 15: no per-request JWKS
   * work). An entry is used only while the JWKS document it came from is the current one and fresh; anything
   * else (stale keys, a refetch, an unknown kid) goes through `getKey` as before.
   */
  const keysByKid = new Map<string, { key: KeyObject; generation: number }>();

  /** The remembered key when it is still good; synchronous, so the common case awaits nothing. */
  function knownKey(kid: string): KeyObject | undefined {
    const known = keysByKid.get(kid);
    return known && known.generation === generation && remote.fresh ? known.key : undefined;
  }

  async function keyFor(kid: string, jws: CompactJws): Promise<KeyObject | ReceiptVerification> {
    const before = generation;
    const wasFresh = remote.fresh;
    let found: Awaited<ReturnType<JWTVerifyGetKey>>;
    try {
      found = await getKey(jws.header as Parameters<JWTVerifyGetKey>[0], {
        payload: jws.encodedPayload,
        signature: jws.encodedSignature,
      });
    } catch (error) {
      const refusal = translateJoseError(error);
      if (refusal) return refusal;
      throw error; // jwks_unavailable and anything unexpected: the caller fails closed
    }
    const key = found instanceof KeyObject ? found : KeyObject.from(found as webcrypto.CryptoKey);
    // jose selected an OKP/Ed25519 key for EdDSA; anything else is not a receipt key.
    if (key.type !== "public" || key.asymmetricKeyType !== "ed25519")
      return refuse("kid_unknown", "the published key for this kid is not an Ed25519 public key");
    // Remember it only when it came from the current, fresh document (not from stale keys, not across a refetch).
    if (wasFresh && remote.fresh && generation === before) {
      for (const [cachedKid, entry] of keysByKid)
        if (entry.generation !== generation) keysByKid.delete(cachedKid);
      keysByKid.set(kid, { key, generation });
    }
    return key;
  }

  async function verifyUncached(token: string, expect: ReceiptExpectation): Promise<ReceiptVerification> {
    const jws = parseCompactJws(token);
    if ("ok" in jws) return jws;
    const { header } = jws;
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
    const key = knownKey(header.kid) ?? (await keyFor(header.kid, jws));
    if (!(key instanceof KeyObject)) return key;
    const badSignature = verifyEd25519Jws(jws, key);
    if (badSignature) return badSignature;
    const decoded = receiptPayload(jws, {
      issuer,
      audience: expect.merchantId,
      clockToleranceSec,
      nowMs: now(),
    });
    if ("ok" in decoded) return decoded;
    const problem = receiptClaimsProblem(decoded.claims as JWTPayload);
    if (problem) return refuse("claims_invalid", problem);
    const claims = decoded.claims as unknown as ReceiptClaims;
    const kid = header.kid;
    remember(token, { claims, kid, expiresAtMs: (claims.exp + clockToleranceSec) * 1000 });
    return checkExpectation(claims, kid, expect, "verified");
  }

  return {
    issuer,
    jwksUrl: jwksUrl.href,
    async verify(token, expect) {
      if (token.length > MAX_RECEIPT_LENGTH) {
        counters.refused += 1;
        return refuse("malformed", `receipt longer than ${MAX_RECEIPT_LENGTH} characters`);
      }
      const cached = tokenCache.get(token);
      if (cached) {
        const kidStillPublished = !publishedKids || publishedKids.has(cached.kid);
        if (cached.expiresAtMs > now() && kidStillPublished) {
          // Keep the key set moving while only cache hits arrive, so retirements are noticed.
          if (!remote.fresh && !remote.reloading && now() - lastFailureAt >= retryAfterErrorMs) {
            remote.reload().catch(() => undefined);
          }
          tokenCache.delete(token);
          tokenCache.set(token, cached);
          counters.cacheHits += 1;
          const result = checkExpectation(cached.claims, cached.kid, expect, "cache");
          if (!result.ok) counters.refused += 1;
          return result;
        }
        tokenCache.delete(token);
      }
      const result = await verifyUncached(token, expect);
      if (result.ok) counters.verified += 1;
      else counters.refused += 1;
      return result;
    },
    stats: () => ({ ...counters, cacheSize: tokenCache.size }),
    clearTokenCache: () => tokenCache.clear(),
  };
}

/** True for the error {@link ReceiptVerifier.verify} throws when no keys can be obtained (answer 503). */
export function isJwksUnavailable(error: unknown): error is AppError {
  return error instanceof AppError && error.code === "jwks_unavailable";
}
