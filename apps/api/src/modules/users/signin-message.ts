/**
 * Sign-in messages (docs/users.md). EVM: Sign-In with Ethereum (EIP-4361), parsed and validated with
 * viem's `siwe` helpers and verified with `verifyMessage` (EOA signatures, EIP-191). Solana: the same message
 * with `Solana account` and a base58 address (the Sign-In With Solana text form; `Chain ID` optional), an Ed25519
 * signature over its UTF-8 bytes, verified with node:crypto. Both must name this service's domain, a URI on its
 * origin, the server's nonce, an issue time and an expiry no further out than a nonce lives. Pure: no database.
 */
import type { WalletKind } from "@tollgate/db";
import { AppError, isSolanaAddress } from "@tollgate/shared";
import { type Hex, verifyMessage } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { decodeBase58Exact, type Ed25519Verifier } from "../identity/identity-signature";

export interface SigninExpectation {
  /** `host[:port]` of the configured base URL. */
  domain: string;
  /** Origin of the configured base URL; the message URI must be on it. */
  origin: string;
  now: Date;
  /** Longest a message may stay valid (the nonce lifetime). */
  maxLifetimeMs: number;
  /** EVM chain ids a message may name. */
  evmChainIds: ReadonlySet<number>;
}

export interface VerifiedSignin {
  kind: WalletKind;
  /** EVM lower-case; Solana base58 as signed. */
  address: string;
  nonce: string;
}

/** Clock skew tolerated on `Issued At` and `Not Before`. */
const SKEW_MS = 60_000;
const SOLANA_CHAINS = new Set(["mainnet", "devnet", "testnet", "localnet"]);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const EVM_SIGNATURE = /^0x[0-9a-fA-F]{128}([0-9a-fA-F]{2})?$/;

// The Solana form of viem's EIP-4361 expressions (parseSiweMessage.js), with a base58 address and a text chain.
const SOLANA_PREFIX =
  /^(?:(?<scheme>[a-zA-Z][a-zA-Z0-9+\-.]*):\/\/)?(?<domain>[a-zA-Z0-9+\-.]*(?::[0-9]{1,5})?) wants you to sign in with your Solana account:\n(?<address>[1-9A-HJ-NP-Za-km-z]{32,44})\n\n(?:(?<statement>.*)\n\n)?/;
const SOLANA_SUFFIX =
  /(?:URI: (?<uri>.+))\n(?:Version: (?<version>.+))\n(?:Chain ID: (?<chainId>.+)\n)?(?:Nonce: (?<nonce>[a-zA-Z0-9]+))\n(?:Issued At: (?<issuedAt>.+))(?:\nExpiration Time: (?<expirationTime>.+))?(?:\nNot Before: (?<notBefore>.+))?(?:\nRequest ID: (?<requestId>.*))?(?:\nResources:(?<resources>(?:\n- .+)*))?/;

interface CommonFields {
  scheme?: string | undefined;
  domain?: string | undefined;
  address?: string | undefined;
  uri?: string | undefined;
  version?: string | undefined;
  nonce?: string | undefined;
  issuedAt?: Date | undefined;
  expirationTime?: Date | undefined;
  notBefore?: Date | undefined;
}

const malformed = (detail: string) => new AppError("signin_message_malformed", detail);
const rejected = (detail: string) => new AppError("signin_message_rejected", detail);

const toDate = (value: string | undefined) =>
  value === undefined ? undefined : DATE_TIME.test(value) ? new Date(value) : new Date(Number.NaN);

function checkCommon(fields: CommonFields, expected: SigninExpectation): void {
  const missing = (
    ["domain", "address", "uri", "version", "nonce", "issuedAt", "expirationTime"] as const
  ).filter((name) => fields[name] === undefined);
  if (missing.length > 0) {
    throw malformed(`the message lacks ${missing.join(", ")}; build it from POST /api/user/nonce`);
  }
  if (fields.version !== "1") throw malformed("Version must be 1");
  for (const [name, value] of [
    ["Issued At", fields.issuedAt],
    ["Expiration Time", fields.expirationTime],
    ["Not Before", fields.notBefore],
  ] as const) {
    if (value !== undefined && Number.isNaN(value.getTime()))
      throw malformed(`${name} must be an RFC 3339 date-time`);
  }
  if (fields.domain !== expected.domain) {
    throw rejected(`the message is for ${fields.domain}; sign in for ${expected.domain}`);
  }
  const expectedScheme = expected.origin.slice(0, expected.origin.indexOf(":"));
  if (fields.scheme !== undefined && fields.scheme !== expectedScheme) {
    throw rejected(`the message scheme ${fields.scheme} is not ${expectedScheme}`);
  }
  let uriOrigin: string | undefined;
  try {
    uriOrigin = new URL(fields.uri!).origin;
  } catch {
    uriOrigin = undefined;
  }
  if (uriOrigin !== expected.origin) throw rejected(`URI must be on ${expected.origin}`);
  const now = expected.now.getTime();
  if (fields.issuedAt!.getTime() > now + SKEW_MS) throw rejected("Issued At is in the future");
  if (fields.issuedAt!.getTime() < now - expected.maxLifetimeMs - SKEW_MS)
    throw rejected("the message is too old");
  if (fields.expirationTime!.getTime() <= now) throw rejected("the message has expired");
  if (fields.expirationTime!.getTime() > now + expected.maxLifetimeMs + SKEW_MS) {
    throw rejected(`Expiration Time may be at most ${expected.maxLifetimeMs / 1000} s away`);
  }
  if (fields.notBefore !== undefined && fields.notBefore.getTime() > now + SKEW_MS) {
    throw rejected("the message is not valid yet (Not Before)");
  }
}

/** Checks and verifies an EIP-4361 message signed by an EVM account (EIP-191 personal_sign). */
export async function verifyEvmSignin(
  message: string,
  signature: string,
  expected: SigninExpectation,
): Promise<VerifiedSignin> {
  const parsed = parseSiweMessage(message);
  checkCommon(parsed, expected);
  if (parsed.chainId === undefined) throw malformed("the message lacks Chain ID");
  if (!expected.evmChainIds.has(parsed.chainId)) {
    throw rejected(`Chain ID ${parsed.chainId} is not one of ${[...expected.evmChainIds].join(", ")}`);
  }
  // viem's own checks as well (nonce form, version, address, times at `now`).
  if (!validateSiweMessage({ message: parsed, domain: expected.domain, time: expected.now })) {
    throw rejected("the message does not pass EIP-4361 validation");
  }
  if (!EVM_SIGNATURE.test(signature)) {
    throw new AppError("signin_signature_invalid", "signature must be 0x + 65 bytes of hex");
  }
  const address = parsed.address!;
  let valid = false;
  try {
    valid = await verifyMessage({ address, message, signature: signature as Hex });
  } catch {
    valid = false;
  }
  if (!valid) throw new AppError("signin_signature_invalid", "the signature is not the message's address's");
  return { kind: "evm", address: address.toLowerCase(), nonce: parsed.nonce! };
}

/** Checks and verifies the Solana form: `public_key` must be the message's address. */
export function verifySolanaSignin(
  message: string,
  signature: string,
  publicKey: string,
  expected: SigninExpectation,
  verifier: Ed25519Verifier,
): VerifiedSignin {
  const prefix = message.match(SOLANA_PREFIX)?.groups ?? {};
  const suffix = message.match(SOLANA_SUFFIX)?.groups ?? {};
  const fields: CommonFields = {
    scheme: prefix.scheme,
    domain: prefix.domain,
    address: prefix.address,
    uri: suffix.uri,
    version: suffix.version,
    nonce: suffix.nonce,
    issuedAt: toDate(suffix.issuedAt),
    expirationTime: toDate(suffix.expirationTime),
    notBefore: toDate(suffix.notBefore),
  };
  checkCommon(fields, expected);
  if (suffix.chainId !== undefined && !SOLANA_CHAINS.has(suffix.chainId)) {
    throw rejected(`Chain ID must be one of ${[...SOLANA_CHAINS].join(", ")}`);
  }
  const address = fields.address!;
  if (!isSolanaAddress(address)) throw malformed("the address is not a base58 Ed25519 public key");
  if (publicKey !== address) throw rejected("public_key is not the message's address");
  const key = decodeBase58Exact(publicKey, 32);
  const bytes = decodeBase58Exact(signature, 64);
  if (!key || !bytes) throw new AppError("signin_signature_invalid", "signature must be base58 of 64 bytes");
  if (!verifier.verify(key, Buffer.from(message, "utf8"), bytes, publicKey)) {
    throw new AppError("signin_signature_invalid", "the signature is not the message's address's");
  }
  return { kind: "solana", address, nonce: fields.nonce! };
}
