/**
 * The session receipt a Tollgate bridge returns with a paid `upto` or `batch-settlement` answer (the API's decision
 * 0088, docs/receipts.md "Session receipts"): a compact EdDSA JWS, `typ` `x402-session-receipt+jwt`, in
 * `PAYMENT-RESPONSE` at `extensions["offer-receipt"].info.receipt.signature`. The agent reports it in a
 * `session_receipt` step so the caller can keep it (docs/agent.md); `readSessionReceipt(response)` reads it back
 * from any paid answer.
 * Invariants: reading never throws and never holds back an answer whose payment moved; the receipt is verified only
 * against the JWKS of an issuer whose origin the agent already trusts (`allowedOrigins`), pinning `typ`, `iss`,
 * `aud` (the receiver) and `sub` (this payer): a token naming any other issuer is reported unverified (`null`),
 * never fetched from a host the agent would not pay.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { type JwksCache, normalizeOrigin } from "./checks";
import { decodeX402Header, X402_HEADERS } from "./x402-wire";

export const SESSION_RECEIPT_TYPE = "x402-session-receipt+jwt";
const JWKS_PATH = "/.well-known/jwks.json";

/** A session receipt as the agent reports it; amounts are decimal strings of the asset's atomic units. */
export interface SessionReceipt {
  /** The compact JWS, to keep as evidence. */
  token: string;
  scheme: "upto" | "batch-settlement";
  jti: string;
  issuer: string;
  kid: string;
  payTo: string;
  amount: string;
  chargedCumulativeAmount: string;
  maxClaimableAmount: string;
  /** `batch-settlement`: the channel. */
  channelId?: string | undefined;
  /** `upto`: the Permit2 nonce and the settlement transaction. */
  authorizationNonce?: string | undefined;
  transaction?: string | undefined;
  /** true: the signature checked out against the issuer's JWKS; false: it did not (`problem`); null: not checked. */
  verified: boolean | null;
  problem?: string | undefined;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The session receipt in a paid answer's `PAYMENT-RESPONSE`, decoded but not verified; undefined when none. */
export function readSessionReceipt(response: Response): Omit<SessionReceipt, "verified"> | undefined {
  const settled = decodeX402Header(response.headers.get(X402_HEADERS.v2Response)) as {
    extensions?: { "offer-receipt"?: { info?: { receipt?: { format?: unknown; signature?: unknown } } } };
  } | null;
  const receipt = settled?.extensions?.["offer-receipt"]?.info?.receipt;
  const token = receipt?.format === "jws" ? text(receipt.signature) : undefined;
  if (!token) return undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.typ !== SESSION_RECEIPT_TYPE) return undefined;
    const claims = decodeJwt(token);
    const scheme = claims.scheme;
    if (scheme !== "upto" && scheme !== "batch-settlement") return undefined;
    return {
      token,
      scheme,
      jti: text(claims.jti) ?? "",
      issuer: text(claims.iss) ?? "",
      kid: text(header.kid) ?? "",
      payTo: text(claims.payTo) ?? "",
      amount: text(claims.amount) ?? "",
      chargedCumulativeAmount: text(claims.chargedCumulativeAmount) ?? "",
      maxClaimableAmount: text(claims.maxClaimableAmount) ?? "",
      channelId: text(claims.channelId),
      authorizationNonce: text(claims.authorizationNonce),
      transaction: text(claims.transaction),
    };
  } catch {
    // Not a JWS at all: nothing the agent can keep as a receipt.
    return undefined;
  }
}

/**
 * The session receipt of a paid answer, verified where its issuer is trusted; undefined when the answer has none.
 * `payer` is this agent's address (the receipt's `sub`).
 */
export async function sessionReceiptOf(
  response: Response,
  deps: { jwks: JwksCache; allowedOrigins: ReadonlySet<string>; payer: string },
): Promise<SessionReceipt | undefined> {
  const read = readSessionReceipt(response);
  if (!read) return undefined;
  let origin: string;
  try {
    origin = normalizeOrigin(read.issuer);
  } catch {
    return { ...read, verified: false, problem: "the issuer is not a URL" };
  }
  if (!deps.allowedOrigins.has(origin)) {
    return { ...read, verified: null, problem: `the issuer ${origin} is not an allowed origin: not checked` };
  }
  try {
    const jwks = await deps.jwks.get(`${read.issuer.replace(/\/$/, "")}${JWKS_PATH}`);
    await jwtVerify(read.token, createLocalJWKSet(jwks), {
      typ: SESSION_RECEIPT_TYPE,
      algorithms: ["EdDSA"],
      issuer: read.issuer,
      audience: read.payTo.toLowerCase(),
      subject: deps.payer.toLowerCase(),
    });
    return { ...read, verified: true };
  } catch (error) {
    return { ...read, verified: false, problem: (error as Error).message };
  }
}
