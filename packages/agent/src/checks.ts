/**
 * Checks made BEFORE any money moves (DESIGN.md §6; prior-art lessons §8 items 9, 11):
 * the challenge's Tollgate origin is trusted, the quote is for what the challenge sold, the settlement call is
 * exactly what the service signed for this payer, and the quote has time left.
 */
import { KeyObject } from "node:crypto";
import {
  type GateChallenge,
  JWKS_PATH,
  PAY_PATH,
  parseUsd,
  QUOTE_PATH,
  type QuoteResponse,
  RECEIPT_ALGORITHM,
  SETTLEMENT_CALL_JWS_TYPE,
  type SettlementCallClaims,
} from "@tollgate/shared";
import { ed25519SignatureProblem, strictEd25519Key } from "@tollgate/shared/ed25519";
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from "jose";
import { decodeFunctionData, erc20Abi, type Hex } from "viem";
import { type Clock, systemClock } from "./clock";
import { AgentError, QuoteRejectedError } from "./errors";
import type { FetchLike } from "./http-json";

/** The Tollgate API a challenge points at: its origin-derived base URL (the receipt and JWS issuer). */
export interface ApiEndpoints {
  origin: string;
  base: string;
  quoteUrl: string;
  payUrl: string;
  jwksUrl: string;
}

/** Normalises an origin ("https://api.example.com:443/" -> "https://api.example.com"). */
export function normalizeOrigin(value: string): string {
  return new URL(value).origin;
}

/**
 * Resolves the endpoints of a challenge and refuses unless quote, pay and JWKS URLs share one origin that the
 * caller trusts (prior-art §8 item 9: a client that pays any host answering 402 can be drained).
 */
export function endpointsOf(challenge: GateChallenge, allowedOrigins: ReadonlySet<string>): ApiEndpoints {
  const quote = new URL(challenge.quote_url);
  const origin = quote.origin;
  if (!allowedOrigins.has(origin)) {
    throw new QuoteRejectedError(
      "origin_not_allowed",
      `Tollgate API ${origin} is not in allowedOrigins (${[...allowedOrigins].join(", ") || "none configured"})`,
    );
  }
  for (const [name, url] of [
    ["pay_url", challenge.pay_url],
    ["jwks_url", challenge.jwks_url],
  ] as const) {
    if (new URL(url).origin !== origin) {
      throw new QuoteRejectedError(
        "origin_not_allowed",
        `${name} ${url} is not on the quote origin ${origin}`,
      );
    }
  }
  if (!quote.pathname.endsWith(QUOTE_PATH) || quote.search) {
    throw new QuoteRejectedError(
      "origin_not_allowed",
      `quote_url ${challenge.quote_url} does not end in ${QUOTE_PATH}`,
    );
  }
  const base = `${origin}${quote.pathname.slice(0, -QUOTE_PATH.length)}`;
  if (challenge.pay_url !== `${base}${PAY_PATH}` || challenge.jwks_url !== `${base}${JWKS_PATH}`) {
    throw new QuoteRejectedError(
      "origin_not_allowed",
      "pay_url and jwks_url must sit beside quote_url on the same API",
    );
  }
  return {
    origin,
    base,
    quoteUrl: challenge.quote_url,
    payUrl: challenge.pay_url,
    jwksUrl: challenge.jwks_url,
  };
}

/** JWKS cache per URL; refetched when a `kid` is unknown (key rotation) and at most every `minRefetchMs`. */
export class JwksCache {
  private readonly entries = new Map<string, { jwks: JSONWebKeySet; fetchedAt: number }>();
  constructor(
    private readonly fetchImpl: FetchLike,
    private readonly clock: Clock = systemClock,
    private readonly maxAgeMs = 300_000,
    private readonly minRefetchMs = 1_000,
  ) {}

  /** The key set at `url`; throws AgentError `jwks_unavailable` when it cannot be had. */
  async get(url: string, force = false): Promise<JSONWebKeySet> {
    const cached = this.entries.get(url);
    const age = cached ? this.clock.now() - cached.fetchedAt : Number.POSITIVE_INFINITY;
    if (cached && age < this.maxAgeMs && (!force || age < this.minRefetchMs)) return cached.jwks;
    const unavailable = (detail: string, cause: unknown) =>
      new AgentError("jwks_unavailable", `JWKS ${url} ${detail}`, { cause });
    let response: Response;
    try {
      response = await this.fetchImpl(url, { headers: { accept: "application/json" }, redirect: "error" });
    } catch (error) {
      throw unavailable("could not be fetched", error);
    }
    if (!response.ok) throw unavailable(`answered ${response.status}`, { status: response.status });
    let jwks: JSONWebKeySet;
    try {
      jwks = (await response.json()) as JSONWebKeySet;
    } catch (error) {
      throw unavailable("is not JSON", error);
    }
    if (!Array.isArray(jwks?.keys)) throw unavailable("has no keys", { body: jwks });
    this.entries.set(url, { jwks, fetchedAt: this.clock.now() });
    return jwks;
  }
}

/**
 * jose's key selection from a JWKS, refusing what strict Ed25519 refuses (decision 0068): a small-order or
 * non-canonical key, and a signature with S >= L or a small-order or non-canonical R. jose then verifies.
 */
function strictEd25519Jwks(jwks: JSONWebKeySet): JWTVerifyGetKey {
  const select = createLocalJWKSet(jwks);
  return async (header, token) => {
    const signature = Buffer.from(token.signature, "base64url");
    const signatureProblem = ed25519SignatureProblem(signature);
    if (signatureProblem) throw new Error(`the signature is refused by strict Ed25519: ${signatureProblem}`);
    const key = await select(header, token);
    const strict = strictEd25519Key(key instanceof KeyObject ? key : KeyObject.from(key));
    if (typeof strict === "string")
      throw new Error(`the published key ${String(header.kid)} is refused by strict Ed25519: ${strict}`);
    return key;
  };
}

/** Verifies the settlement-call JWS and returns its claims; refuses on any mismatch with the call as returned. */
export async function verifySettlementCall(input: {
  quote: QuoteResponse;
  endpoints: ApiEndpoints;
  payer: string;
  jwks: JwksCache;
}): Promise<SettlementCallClaims> {
  const { quote, endpoints, payer } = input;
  const call = quote.settlement_call;
  const verifyWith = async (force: boolean) =>
    jwtVerify(call.signature, strictEd25519Jwks(await input.jwks.get(endpoints.jwksUrl, force)), {
      algorithms: [RECEIPT_ALGORITHM],
      typ: SETTLEMENT_CALL_JWS_TYPE,
      issuer: endpoints.base,
      audience: payer.toLowerCase(),
    });
  let payload: Record<string, unknown>;
  try {
    try {
      payload = (await verifyWith(false)).payload;
    } catch (error) {
      // A kid we have not seen yet: the service rotated keys; refetch once.
      if ((error as { code?: string }).code !== "ERR_JWKS_NO_MATCHING_KEY") throw error;
      payload = (await verifyWith(true)).payload;
    }
  } catch (error) {
    throw new QuoteRejectedError(
      "signature_invalid",
      `settlement_call signature does not verify: ${String(error)}`,
      {
        cause: error,
        quoteId: quote.quote_id,
      },
    );
  }
  const claims = payload as unknown as SettlementCallClaims;
  const mismatch = (what: string) => {
    throw new QuoteRejectedError(
      "call_mismatch",
      `settlement_call ${what} differs from what the service signed`,
      {
        quoteId: quote.quote_id,
      },
    );
  };
  const same = (a: unknown, b: unknown) => String(a).toLowerCase() === String(b).toLowerCase();
  if (claims.quote_id !== quote.quote_id) mismatch("quote_id");
  if (claims.merchant_id !== quote.merchant_id) mismatch("merchant_id");
  if (!same(claims.payer, payer)) mismatch("payer");
  if (claims.chain_id !== call.chain_id || claims.chain_id !== quote.chain_id) mismatch("chain_id");
  if (!same(claims.to, call.to)) mismatch("to");
  if (!same(claims.data, call.data)) mismatch("data");
  if (claims.value !== call.value) mismatch("value");
  if (claims.amount_atomic !== quote.amount_atomic) mismatch("amount_atomic");
  if (claims.asset !== quote.asset) mismatch("asset");
  if (claims.expires_at !== quote.expires_at) mismatch("expires_at");
  const approval = call.approval;
  if (Boolean(claims.approval) !== Boolean(approval)) mismatch("approval");
  if (approval && claims.approval) {
    if (!same(claims.approval.to, approval.to)) mismatch("approval.to");
    if (!same(claims.approval.data, approval.data)) mismatch("approval.data");
    if (claims.approval.value !== approval.value) mismatch("approval.value");
    if (approval.chain_id !== call.chain_id) mismatch("approval.chain_id");
  }
  return claims;
}

/**
 * Plausibility of the call beyond the signature: native payments carry exactly the quoted amount as value;
 * stablecoin payments send no value and approve exactly the quoted amount of the quoted token (prior-art §9
 * item 5: exact approvals only).
 */
export function checkCallShape(quote: QuoteResponse): void {
  const call = quote.settlement_call;
  const rejection = (detail: string) =>
    new QuoteRejectedError("call_mismatch", detail, { quoteId: quote.quote_id });
  const fail = (detail: string) => {
    throw rejection(detail);
  };
  if (quote.token === null) {
    if (call.value !== quote.amount_atomic)
      fail(`native value ${call.value} is not the quoted ${quote.amount_atomic}`);
    if (call.approval) fail("a native payment needs no approval");
    return;
  }
  if (call.value !== "0") fail("a stablecoin payment must send no native value");
  const approval = call.approval;
  if (!approval) throw rejection("a stablecoin payment needs its approval step");
  if (
    approval.to.toLowerCase() !== quote.token.toLowerCase() ||
    approval.token.toLowerCase() !== quote.token.toLowerCase()
  )
    fail("approval is not for the quoted token");
  if (approval.value !== "0") fail("approval must send no native value");
  if (approval.amount !== quote.amount_atomic) fail("approval amount differs from the quote");
  let decoded: { functionName: string; args: readonly unknown[] };
  try {
    decoded = decodeFunctionData({ abi: erc20Abi, data: approval.data as Hex }) as {
      functionName: string;
      args: readonly unknown[];
    };
  } catch {
    throw rejection("approval data is not an ERC-20 approve");
  }
  const [spender, amount] = decoded.args as [string, bigint];
  if (
    spender.toLowerCase() !== approval.spender.toLowerCase() ||
    spender.toLowerCase() !== call.to.toLowerCase()
  )
    fail("approval spender is not the settlement contract");
  if (amount !== BigInt(quote.amount_atomic)) fail("approval amount differs from the quote");
}

/** The quote sells what the challenge offered, at no more than the advertised unit price (prior-art §8 item 11). */
export function checkQuoteMatchesChallenge(
  quote: QuoteResponse,
  challenge: GateChallenge,
  payer: string,
): void {
  const fail = (reason: "quote_mismatch" | "price_changed", detail: string) => {
    throw new QuoteRejectedError(reason, detail, { quoteId: quote.quote_id });
  };
  if (quote.merchant_id !== challenge.merchant_id)
    fail("quote_mismatch", "merchant_id differs from the challenge");
  if (quote.resource !== challenge.resource) fail("quote_mismatch", "resource differs from the challenge");
  if (quote.tier !== challenge.tier) fail("quote_mismatch", "tier differs from the challenge");
  if (quote.payer.toLowerCase() !== payer.toLowerCase()) fail("quote_mismatch", "payer is not this agent");
  if (quote.chain_id !== quote.settlement_call.chain_id)
    fail("quote_mismatch", "chain_id differs from the call");
  const unit = parseUsd(quote.unit_price);
  if (unit > parseUsd(challenge.unit_price)) {
    fail(
      "price_changed",
      `unit price ${quote.unit_price} USD is above the advertised ${challenge.unit_price} USD`,
    );
  }
  if (unit * BigInt(quote.units) !== parseUsd(quote.amount)) {
    fail("quote_mismatch", `amount ${quote.amount} USD is not ${quote.units} x ${quote.unit_price} USD`);
  }
}

/**
 * The atomic amount matches the USD amount: exactly for stablecoins (1 USD each, DESIGN.md §5), and for the
 * native coin within 1% of amount / the quote's fixed rate (the displayed rate is rounded to micro-USD). The
 * USD amount is what spend limits count, so it must not understate what the transaction moves.
 */
export function checkAtomicAmount(quote: QuoteResponse): void {
  const rejection = (detail: string) =>
    new QuoteRejectedError("quote_mismatch", detail, { quoteId: quote.quote_id });
  const microUsd = parseUsd(quote.amount);
  const atomic = BigInt(quote.amount_atomic);
  if (quote.token !== null) {
    const scale = 10n ** BigInt(Math.abs(quote.decimals - 6));
    const expected = quote.decimals >= 6 ? microUsd * scale : (microUsd + scale - 1n) / scale;
    if (atomic !== expected)
      throw rejection(`amount_atomic ${quote.amount_atomic} is not ${quote.amount} ${quote.asset}`);
    return;
  }
  if (!quote.rate) throw rejection("a native-coin quote must state its rate");
  const price = parseUsd(quote.rate.price);
  if (price <= 0n) throw rejection("rate price must be positive");
  const expected = (microUsd * 10n ** BigInt(quote.decimals)) / price;
  if (atomic * 100n > expected * 101n) {
    throw rejection(
      `amount_atomic ${quote.amount_atomic} is more than ${quote.amount} USD at ${quote.rate.price} USD`,
    );
  }
}
