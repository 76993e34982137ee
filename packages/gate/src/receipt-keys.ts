/**
 * The receipt signing keys of one issuer (DESIGN.md §6 "Gate middleware"; SPEC §5; checklist B3): the JWKS
 * fetched with jose's `createRemoteJWKSet` (cached; an unknown `kid` refetches at most once per cooldown), the
 * last good document kept usable while the endpoint fails (stale-if-error), and node:crypto keys made once per
 * `kid` (no per-request JWKS work). Split from verifier.ts, which composes it.
 */
import { KeyObject, type webcrypto } from "node:crypto";
import { AppError } from "@tollgate/shared/errors";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from "jose";
import { type CompactJws, parseProtectedHeader } from "./receipt-jws";
import {
  isKeyLookupVerdict,
  isString,
  type ReceiptVerification,
  refuse,
  translateJoseError,
} from "./verdicts";

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface ReceiptKeySourceOptions {
  jwksUrl: URL;
  fetchImpl: FetchLike;
  now: () => number;
  /** Shared with the verifier's stats. */
  counters: { jwksFetches: number; jwksFetchFailures: number };
  cacheMaxAgeMs: number;
  cooldownMs: number;
  timeoutMs: number;
  staleIfErrorMs: number;
  retryAfterErrorMs: number;
}

export interface ReceiptKeySource {
  /** The remembered key when it is still good; synchronous, so the common case awaits nothing. */
  knownKey(kid: string): KeyObject | undefined;
  /** The key for `kid` through the JWKS (fetching when needed), or the refusal; rejects with `jwks_unavailable`. */
  keyFor(kid: string, jws: CompactJws): Promise<KeyObject | ReceiptVerification>;
  /** False only when the last JWKS document received no longer lists `kid` (a retired key). */
  isPublished(kid: string): boolean;
  /** Starts a background refetch when the key set is due and the endpoint is not in its error back-off. */
  keepFresh(): void;
}

export function createReceiptKeySource(options: ReceiptKeySourceOptions): ReceiptKeySource {
  const { now, counters, staleIfErrorMs, retryAfterErrorMs } = options;
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
      response = await options.fetchImpl(input, { ...init, redirect: "manual" });
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

  const remote = createRemoteJWKSet(options.jwksUrl, {
    cacheMaxAge: options.cacheMaxAgeMs,
    cooldownDuration: options.cooldownMs,
    timeoutDuration: options.timeoutMs,
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

  /**
   * node:crypto keys by `kid`, made once from the key jose's JWKS set selected. An entry is used only while the
   * JWKS document it came from is the current one and fresh; anything else (stale keys, a refetch, an unknown
   * kid) goes through `getKey`.
   */
  const keysByKid = new Map<string, { key: KeyObject; generation: number }>();

  function knownKey(kid: string): KeyObject | undefined {
    const known = keysByKid.get(kid);
    return known && known.generation === generation && remote.fresh ? known.key : undefined;
  }

  async function keyFor(kid: string, jws: CompactJws): Promise<KeyObject | ReceiptVerification> {
    const before = generation;
    const wasFresh = remote.fresh;
    // A header known from an earlier receipt was not parsed again (verifier.ts); jose's selection needs it.
    const header = jws.header ?? parseProtectedHeader(jws.encodedHeader) ?? {};
    let found: Awaited<ReturnType<JWTVerifyGetKey>>;
    try {
      found = await getKey(header as Parameters<JWTVerifyGetKey>[0], {
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

  return {
    knownKey,
    keyFor,
    isPublished: (kid) => !publishedKids || publishedKids.has(kid),
    keepFresh() {
      if (!remote.fresh && !remote.reloading && now() - lastFailureAt >= retryAfterErrorMs) {
        remote.reload().catch(() => undefined);
      }
    },
  };
}
