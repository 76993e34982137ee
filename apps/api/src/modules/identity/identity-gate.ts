/**
 * The identity gate (SPEC §5): nonce issuance and the check of a signed retry.
 *
 * Order of checks, each failing with its own code (docs/decisions/0017-identity-gate.md):
 *   headers missing → 402 identity_required (with a fresh nonce)
 *   a header malformed (pubkey or signature: base58, lengths; any sent twice) → 400 identity_header_malformed
 *   nonce not of our form (it cannot be one we issued) → 402 identity_nonce_invalid (with a fresh nonce)
 *   signature invalid → 403 identity_signature_invalid   (before the nonce is touched: a bad signature never
 *                                                           burns anyone's nonce)
 *   nonce unknown, expired or used → 402 identity_nonce_invalid (with a fresh nonce)
 *   seat missing / for an older agreement → 403 identity_seat_missing / identity_seat_outdated
 * The nonce is consumed before the seat check: a signer without a seat spends its own nonce (it signed it).
 */
import { randomBytes } from "node:crypto";
import { AppError } from "@tollgate/shared";
import bs58 from "bs58";
import type { Clock } from "../../infra/clock";
import { ALL_CLIENTS, type ClientKey, type RateLimiter } from "../../infra/rate-limit";
import {
  decodeBase58Exact,
  ED25519_SIGNATURE_BYTES,
  Ed25519Verifier,
  identityMessageDigest,
} from "./identity-signature";
import type { NonceStore } from "./nonce-store";
import type { SeatChecker } from "./seat-checker";

export const IDENTITY_HEADERS = {
  pubkey: "x-agent-pubkey",
  nonce: "x-nonce",
  signature: "x-signature",
  nonceExpires: "x-nonce-expires",
} as const;

/** Nonces are 16 random bytes in base58 (at most 22 characters); longer or other text is malformed. */
const NONCE_BYTES = 16;
const NONCE_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{1,32}$/;

export interface IssuedNonce {
  nonce: string;
  expiresAt: Date;
}

export interface IdentityGateOptions {
  clock: Clock;
  store: NonceStore;
  seats: SeatChecker;
  /** `<service>` in SPEC §5 (DESIGN §1: `tollgate`). */
  prefix: string;
  lifetimeSeconds: number;
  /** Issuance per client address, and for everyone together (this bounds the live nonces in the store). */
  issueLimiters: { perClient: RateLimiter; total: RateLimiter };
}

export interface IdentityCounts {
  noncesIssued: number;
  verified: number;
  refusedMalformed: number;
  refusedSignature: number;
  refusedNonce: number;
  refusedSeat: number;
}

export type HeaderValue = string | string[] | undefined;

export class IdentityGate {
  readonly counts: IdentityCounts = {
    noncesIssued: 0,
    verified: 0,
    refusedMalformed: 0,
    refusedSignature: 0,
    refusedNonce: 0,
    refusedSeat: 0,
  };
  private readonly verifier = new Ed25519Verifier();

  constructor(private readonly options: IdentityGateOptions) {}

  get store(): NonceStore {
    return this.options.store;
  }

  get seats(): SeatChecker {
    return this.options.seats;
  }

  async issueNonce(client: ClientKey): Promise<IssuedNonce> {
    await this.options.issueLimiters.perClient.consume(client);
    await this.options.issueLimiters.total.consume(ALL_CLIENTS);
    const issuedAt = this.options.clock.now();
    const expiresAt = new Date(issuedAt.getTime() + this.options.lifetimeSeconds * 1000);
    const nonce = bs58.encode(randomBytes(NONCE_BYTES));
    await this.options.store.put(nonce, issuedAt, expiresAt);
    this.counts.noncesIssued++;
    return { nonce, expiresAt };
  }

  /** Checks a signed request; returns the agent's base58 pubkey or throws the AppError to answer with. */
  async authenticate(headers: {
    pubkey: HeaderValue;
    nonce: HeaderValue;
    signature: HeaderValue;
  }): Promise<string> {
    const { pubkey, nonce, signature } = headers;
    if (pubkey === undefined || nonce === undefined || signature === undefined)
      throw new AppError(
        "identity_required",
        "sign the nonce and resend with x-agent-pubkey, x-nonce and x-signature",
      );
    const malformed = (detail: string) => {
      this.counts.refusedMalformed++;
      return new AppError("identity_header_malformed", detail);
    };
    if (typeof pubkey !== "string" || typeof nonce !== "string" || typeof signature !== "string")
      throw malformed("identity headers must be sent once each");
    // Cached by base58 text: a known key skips its decode and import.
    const key = this.verifier.publicKey(pubkey);
    if (key === undefined) throw malformed("x-agent-pubkey must be a base58 Ed25519 public key (32 bytes)");
    const sig = decodeBase58Exact(signature, ED25519_SIGNATURE_BYTES);
    if (!sig) throw malformed("x-signature must be a base58 Ed25519 signature (64 bytes)");

    // SPEC §5: an unknown nonce is 402 with a fresh one; text that cannot be a nonce of ours is an unknown nonce
    // (nothing to burn, so before the signature is checked).
    if (!NONCE_PATTERN.test(nonce)) throw this.nonceRefused();

    const digest = identityMessageDigest(this.options.prefix, nonce, pubkey);
    if (key === null || !this.verifier.verifyWith(key, digest, sig)) {
      this.counts.refusedSignature++;
      throw new AppError(
        "identity_signature_invalid",
        `signature does not verify over sha256("${this.options.prefix}-x402:{nonce}:{pubkey}") for this public key`,
      );
    }
    if (!(await this.options.store.consume(nonce, this.options.clock.now()))) throw this.nonceRefused();
    const verdict = await this.options.seats.check(pubkey);
    if (!verdict.ok) {
      this.counts.refusedSeat++;
      throw new AppError(verdict.code, verdict.detail);
    }
    this.counts.verified++;
    return pubkey;
  }

  private nonceRefused(): AppError {
    this.counts.refusedNonce++;
    return new AppError("identity_nonce_invalid", "nonce unknown, expired or already used; sign the new one");
  }
}
