/**
 * The agent side of the identity gate (SPEC §5): answer a 402 that carries `x-nonce` by signing the raw
 * 32-byte sha256 of `<prefix>-x402:{nonce}:{pubkey}` with the agent's Ed25519 (Solana) key, and retry once.
 * tweetnacl signs here (client side only; the server verifies strictly, @tollgate/shared/ed25519, decision 0068).
 */
import { createHash } from "node:crypto";
import bs58 from "bs58";
import nacl from "tweetnacl";

export interface SolanaIdentity {
  /** base58 public key */
  pubkey: string;
  secretKey: Uint8Array;
}

/** A Solana CLI keypair file's text: a JSON array of 64 bytes (secret seed + public key). */
export function identityFromKeypairJson(text: string): SolanaIdentity {
  const bytes: unknown = JSON.parse(text);
  if (
    !Array.isArray(bytes) ||
    bytes.length !== 64 ||
    !bytes.every((b) => Number.isInteger(b) && b >= 0 && b < 256)
  )
    throw new Error("a Solana keypair file holds a JSON array of 64 bytes");
  const keypair = nacl.sign.keyPair.fromSecretKey(Uint8Array.from(bytes as number[]));
  return { pubkey: bs58.encode(keypair.publicKey), secretKey: keypair.secretKey };
}

export function identityHeaders(
  identity: SolanaIdentity,
  nonce: string,
  prefix = "tollgate",
): Record<string, string> {
  const digest = createHash("sha256").update(`${prefix}-x402:${nonce}:${identity.pubkey}`, "utf8").digest();
  return {
    "x-agent-pubkey": identity.pubkey,
    "x-nonce": nonce,
    "x-signature": bs58.encode(nacl.sign.detached(digest, identity.secretKey)),
  };
}

export interface IdentityFetchResult {
  response: Response;
  /** The 402 answered, if there was one. */
  challenge?: Record<string, unknown>;
}

/** GETs `url`; on a 402 with a nonce, signs it and retries once. */
export async function identityFetch(
  url: string,
  identity: SolanaIdentity,
  options: { prefix?: string; fetch?: typeof fetch } = {},
): Promise<IdentityFetchResult> {
  const doFetch = options.fetch ?? fetch;
  const first = await doFetch(url, { headers: { accept: "application/json" } });
  const nonce = first.headers.get("x-nonce");
  if (first.status !== 402 || !nonce) return { response: first };
  const challenge = (await first.json().catch(() => ({}))) as Record<string, unknown>;
  const response = await doFetch(url, {
    headers: { accept: "application/json", ...identityHeaders(identity, nonce, options.prefix) },
  });
  return { response, challenge };
}
