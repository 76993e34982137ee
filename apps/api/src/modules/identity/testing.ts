/**
 * Test helpers for the identity gate: agents with real Ed25519 keys (node:crypto), signed headers,
 * a mutable clock, and a local Solana RPC holding seats.
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import type { Clock } from "../../infra/clock";
import { AGREEMENT_TEXT } from "./identity-documents";
import { identityMessageDigest } from "./identity-signature";
import { type LocalSolanaRpc, reserveSeat } from "./solana-local-rpc";

export const DEFAULT_SEAT_PROGRAM = new PublicKey("9UQ5xLJWXWYovruVQD9jdP6Qj5WS93hYVMtprSQWXzhi");
export const CURRENT_AGREEMENT_HASH = createHash("sha256").update(AGREEMENT_TEXT, "utf8").digest();

export interface TestAgent {
  pubkey: string;
  publicKey: PublicKey;
  privateKey: KeyObject;
  /** base58 detached signature over `message` (bytes as given). */
  signBytes(message: Buffer): string;
  /** The three identity headers for `nonce`, signed the SPEC §5 way. */
  headers(nonce: string, prefix?: string): Record<string, string>;
}

export function testAgent(): TestAgent {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = publicKey.export({ format: "jwk" }).x ?? "";
  const raw = Buffer.from(x, "base64url");
  const pubkey = bs58.encode(raw);
  const signBytes = (message: Buffer) => bs58.encode(sign(null, message, privateKey));
  return {
    pubkey,
    publicKey: new PublicKey(raw),
    privateKey,
    signBytes,
    headers: (nonce, prefix = "tollgate") => ({
      "x-agent-pubkey": pubkey,
      "x-nonce": nonce,
      "x-signature": signBytes(identityMessageDigest(prefix, nonce, pubkey)),
    }),
  };
}

/**
 * The degenerate key of decision 0068: the identity point (0, 1) as a public key, and R = identity, S = 0 as its
 * "signature". node:crypto alone accepts that pair over any message; the strict verifier refuses it.
 */
export const IDENTITY_POINT_KEY = bs58.encode(Buffer.from([1, ...new Array<number>(31).fill(0)]));
export const IDENTITY_POINT_SIGNATURE = bs58.encode(Buffer.from([1, ...new Array<number>(63).fill(0)]));

export function giveSeat(
  rpc: LocalSolanaRpc,
  agent: PublicKey,
  options: { agreementHash?: Buffer; programId?: PublicKey } = {},
): string {
  return reserveSeat(rpc.ledger, {
    programId: options.programId ?? DEFAULT_SEAT_PROGRAM,
    agent,
    agreementHash: options.agreementHash ?? CURRENT_AGREEMENT_HASH,
    reservedAt: new Date("2026-01-01T00:00:00Z"),
  });
}

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = new Date("2026-06-01T12:00:00.000Z")) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export { clientKey } from "../../infra/rate-limit";
// For bench/identity-verify.ts (public testing entry `@tollgate/api/testing/identity`).
export { IdentityGate } from "./identity-gate";
export { identityMessageDigest } from "./identity-signature";
export { memoryNonceStore } from "./nonce-store";
export { SeatChecker, type SolanaAccountReader } from "./seat-checker";
export { encodeSeat, seatAddress } from "./seat-program";
