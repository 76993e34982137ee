/**
 * The text a merchant's current payout wallet signs to change the payout (docs/merchants.md).
 * EVM: an EIP-4361 (SIWE) message built with viem's `createSiweMessage`, signed with `personal_sign` (EIP-191).
 * Solana: the same fields in the Sign-In With Solana text form (docs/users.md), an Ed25519 signature over its
 * UTF-8 bytes. The statement names the merchant and the whole new payout, so the wallet shows what it approves;
 * the server keeps the exact text and verifies the signature over it. Pure: no database.
 */
import type { PayTo } from "@tollgate/shared";
import { getAddress, type Hex, verifyMessage } from "viem";
import { createSiweMessage } from "viem/siwe";
import { decodeBase58Exact, type Ed25519Verifier } from "../identity/identity-signature";

export type SignerKind = "evm" | "solana";

export interface PayoutChangeMessageFields {
  merchantId: string;
  /** The SIWE chain id: the merchant's settlement chain. */
  chainId: number;
  signer: { kind: SignerKind; address: string };
  newPayTo: PayTo;
  domain: string;
  uri: string;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

const FAMILIES = ["evm", "solana", "near", "aptos"] as const;

/** `evm 0x…, solana …`: every family of the new payout, in a fixed order. */
export function describePayTo(payTo: PayTo): string {
  return FAMILIES.filter((family) => payTo[family] !== undefined)
    .map((family) => `${family} ${payTo[family]}`)
    .join(", ");
}

export function payoutChangeMessage(fields: PayoutChangeMessageFields): string {
  const statement =
    `Change the payout of Tollgate merchant ${fields.merchantId} to: ${describePayTo(fields.newPayTo)}. ` +
    "Sign only if you asked for this change.";
  const resource = `urn:tollgate:merchant:${fields.merchantId}:payout-change`;
  if (fields.signer.kind === "evm") {
    return createSiweMessage({
      address: getAddress(fields.signer.address),
      chainId: fields.chainId,
      domain: fields.domain,
      uri: fields.uri,
      version: "1",
      nonce: fields.nonce,
      statement,
      issuedAt: fields.issuedAt,
      expirationTime: fields.expiresAt,
      resources: [resource],
    });
  }
  return [
    `${fields.domain} wants you to sign in with your Solana account:`,
    fields.signer.address,
    "",
    statement,
    "",
    `URI: ${fields.uri}`,
    "Version: 1",
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt.toISOString()}`,
    `Expiration Time: ${fields.expiresAt.toISOString()}`,
    "Resources:",
    `- ${resource}`,
  ].join("\n");
}

const EVM_SIGNATURE = /^0x[0-9a-fA-F]{128}([0-9a-fA-F]{2})?$/;

/** True when `signature` is `signer`'s over exactly `message` (EVM: EOA personal_sign; Solana: base58 Ed25519). */
export async function verifyPayoutSignature(
  signer: { kind: SignerKind; address: string },
  message: string,
  signature: string,
  verifier: Ed25519Verifier,
): Promise<boolean> {
  if (signer.kind === "evm") {
    if (!EVM_SIGNATURE.test(signature)) return false;
    try {
      return await verifyMessage({
        address: getAddress(signer.address),
        message,
        signature: signature as Hex,
      });
    } catch {
      return false;
    }
  }
  const key = decodeBase58Exact(signer.address, 32);
  const bytes = decodeBase58Exact(signature, 64);
  if (!key || !bytes) return false;
  return verifier.verify(key, Buffer.from(message, "utf8"), bytes, signer.address);
}
