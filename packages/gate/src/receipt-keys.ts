/**
 * The receipt signing keys of one issuer (DESIGN.md §6 "Gate middleware"; SPEC §5; checklist B3): the JWKS
 * fetched with jose's `createRemoteJWKSet` (cached; an unknown `kid` refetches at most once per cooldown), the
 * last good document kept usable while the endpoint fails (stale-if-error), and node:crypto keys made once per
 * `kid` (no per-request JWKS work). Split from verifier.ts, which composes it.
 */
import { KeyObject, type webcrypto } from "node:crypto";
import { type StrictEd25519Key, strictEd25519Key } from "@tollgate/shared/ed25519";
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
  knownKey(kid: string): StrictEd25519Key | undefined;
  /** The key for `kid` through the JWKS (fetching when needed), or the refusal; rejects with `jwks_unavailable`. */
  keyFor(kid: string, jws: CompactJws): Promise<StrictEd25519Key | ReceiptVerification>;
  /** False only when the last JWKS document received no longer lists `kid` (a retired key). */
  isPublished(kid: string): boolean;
  /** Starts a background refetch when the key set is due and the endpoint is not in its error back-off. */
  keepFresh(): void;
}

/** What the JWKS fetches taught us; written only by {@link observingFetch}. */
interface JwksObservation {
  /** Key ids of the last JWKS document we received; `undefined` until the first good fetch. */
  publishedKids: Set<string> | undefined;
  lastGoodFetchAt: number;
  lastFailureAt: number;
  /** Counts good JWKS documents; a key made from an older one is not reused. */
  generation: number;
}

type LocalGetKey = ReturnType<typeof createLocalJWKSet>;

interface KeySourceState {
  options: ReceiptKeySourceOptions;
  observed: JwksObservation;
  remote: ReturnType<typeof createRemoteJWKSet>;
  /** Local key set built from the last good document, used while the endpoint fails. */
  staleKeys: { generation: number; getKey: LocalGetKey } | undefined;
  /**
   * node:crypto keys by `kid`, made once from the key jose's JWKS set selected. An entry is used only while the
   * JWKS document it came from is the current one and fresh; anything else (stale keys, a refetch, an unknown
   * kid) goes through {@link getKey}.
   */
  keysByKid: Map<string, { key: StrictEd25519Key; generation: number }>;
}

export function createReceiptKeySource(options: ReceiptKeySourceOptions): ReceiptKeySource {
  const observed: JwksObservation = {
    publishedKids: undefined,
    lastGoodFetchAt: Number.NEGATIVE_INFINITY,
    lastFailureAt: Number.NEGATIVE_INFINITY,
    generation: 0,
  };
  const remote = createRemoteJWKSet(options.jwksUrl, {
    cacheMaxAge: options.cacheMaxAgeMs,
    cooldownDuration: options.cooldownMs,
    timeoutDuration: options.timeoutMs,
    [customFetch]: (input: string | URL, init?: RequestInit) =>
      observingFetch(options, observed, input, init),
  });
  const state: KeySourceState = { options, observed, remote, staleKeys: undefined, keysByKid: new Map() };
  return {
    knownKey: (kid) => knownKey(state, kid),
    keyFor: (kid, jws) => keyFor(state, kid, jws),
    isPublished: (kid) => !observed.publishedKids || observed.publishedKids.has(kid),
    keepFresh() {
      if (
        !remote.fresh &&
        !remote.reloading &&
        options.now() - observed.lastFailureAt >= options.retryAfterErrorMs
      ) {
        remote.reload().catch(() => undefined);
      }
    },
  };
}

/**
 * Our fetch wrapper sees every JWKS document jose receives: it records which kids are published (so a cache hit
 * can tell that its key was retired) and when the last good fetch happened.
 */
async function observingFetch(
  options: ReceiptKeySourceOptions,
  observed: JwksObservation,
  input: string | URL,
  init?: RequestInit,
): Promise<Response> {
  const { counters, now } = options;
  const failed = () => {
    counters.jwksFetchFailures += 1;
    observed.lastFailureAt = now();
  };
  counters.jwksFetches += 1;
  let response: Response;
  try {
    response = await options.fetchImpl(input, { ...init, redirect: "manual" });
  } catch (error) {
    failed();
    throw error;
  }
  if (response.status !== 200) {
    failed();
    return response; // jose refuses non-200 itself
  }
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as { keys?: unknown };
    if (Array.isArray(parsed.keys)) {
      observed.publishedKids = kidsOf(parsed.keys);
      observed.lastGoodFetchAt = now();
      observed.generation += 1;
    }
  } catch {
    failed();
  }
  return new Response(text, { status: response.status, headers: response.headers });
}

function kidsOf(keys: unknown[]): Set<string> {
  return new Set(
    keys.flatMap((key: unknown) =>
      key && typeof key === "object" && isString((key as { kid?: unknown }).kid)
        ? [(key as { kid: string }).kid]
        : [],
    ),
  );
}

function staleGetKey(state: KeySourceState): LocalGetKey | undefined {
  const { observed } = state;
  if (state.options.now() - observed.lastGoodFetchAt > state.options.staleIfErrorMs) return undefined;
  const jwks = state.remote.jwks() as JSONWebKeySet | undefined;
  if (!jwks) return undefined;
  if (!state.staleKeys || state.staleKeys.generation !== observed.generation) {
    state.staleKeys = { generation: observed.generation, getKey: createLocalJWKSet(jwks) };
  }
  return state.staleKeys.getKey;
}

async function getKey(
  state: KeySourceState,
  ...[header, token]: Parameters<JWTVerifyGetKey>
): Promise<Awaited<ReturnType<JWTVerifyGetKey>>> {
  const { remote, options } = state;
  // Endpoint failing recently and jose would refetch: go straight to the keys we have.
  if (!remote.fresh && options.now() - state.observed.lastFailureAt < options.retryAfterErrorMs) {
    const stale = staleGetKey(state);
    if (stale) return stale(header, token);
  }
  try {
    return await remote(header, token);
  } catch (error) {
    if (isKeyLookupVerdict(error)) throw error;
    const stale = staleGetKey(state);
    if (stale) return stale(header, token);
    throw new AppError("jwks_unavailable", "receipt signing keys could not be fetched", { cause: error });
  }
}

function knownKey(state: KeySourceState, kid: string): StrictEd25519Key | undefined {
  const known = state.keysByKid.get(kid);
  return known && known.generation === state.observed.generation && state.remote.fresh
    ? known.key
    : undefined;
}

async function keyFor(
  state: KeySourceState,
  kid: string,
  jws: CompactJws,
): Promise<StrictEd25519Key | ReceiptVerification> {
  const { remote, observed, keysByKid } = state;
  const before = observed.generation;
  const wasFresh = remote.fresh;
  // A header known from an earlier receipt was not parsed again (verifier.ts); jose's selection needs it.
  const header = jws.header ?? parseProtectedHeader(jws.encodedHeader) ?? {};
  let found: Awaited<ReturnType<JWTVerifyGetKey>>;
  try {
    found = await getKey(state, header as Parameters<JWTVerifyGetKey>[0], {
      payload: jws.encodedPayload,
      signature: jws.encodedSignature,
    });
  } catch (error) {
    const refusal = translateJoseError(error);
    if (refusal) return refusal;
    throw error; // jwks_unavailable and anything unexpected: the caller fails closed
  }
  const keyObject = found instanceof KeyObject ? found : KeyObject.from(found as webcrypto.CryptoKey);
  // jose selected an OKP/Ed25519 key for EdDSA; anything else is not a receipt key, nor is a small-order or
  // non-canonical point (strict Ed25519, decision 0068).
  const key = strictEd25519Key(keyObject);
  if (key === "not_ed25519")
    return refuse("kid_unknown", "the published key for this kid is not an Ed25519 public key");
  if (typeof key === "string")
    return refuse(
      "kid_unknown",
      "the published key for this kid is a small-order or non-canonical Ed25519 point",
    );
  // Remember it only when it came from the current, fresh document (not from stale keys, not across a refetch).
  const { generation } = observed;
  if (wasFresh && remote.fresh && generation === before) {
    for (const [cachedKid, entry] of keysByKid)
      if (entry.generation !== generation) keysByKid.delete(cachedKid);
    keysByKid.set(kid, { key, generation });
  }
  return key;
}
