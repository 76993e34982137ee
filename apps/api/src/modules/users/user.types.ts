/** Wire shapes shared by the user-session routes (docs/users.md). */
import { safeText } from "@tollgate/shared";
import { z } from "zod";

export const ZWalletKind = z.enum(["evm", "solana"]);

/** A signed EIP-4361 message (EVM) or its Solana form; the same body signs in and links a wallet. */
export const ZSignedMessage = z.strictObject({
  kind: ZWalletKind,
  message: safeText({ multiline: true, max: 4096, label: "message" })
    .pipe(z.string().min(1, "message must not be empty"))
    .describe("the EIP-4361 text exactly as signed (LF line ends)"),
  signature: z
    .string()
    .max(200)
    .regex(/^[0-9A-Za-z]+$/, "must be 0x + hex (evm) or base58 (solana)")
    .describe(
      "evm: 0x + 65 bytes hex (personal_sign); solana: base58 Ed25519 signature of the message bytes",
    ),
  public_key: z
    .string()
    .max(64)
    .regex(/^[1-9A-HJ-NP-Za-km-z]+$/, "must be base58")
    .optional()
    .describe("solana only (required there): the base58 public key, the message's address"),
});

export const ZWallet = z.object({
  kind: ZWalletKind,
  address: z.string().describe("EVM lower-case; Solana base58"),
  linked_at: z.string(),
});

export const ZSignedInWallet = z.object({ kind: ZWalletKind, address: z.string() });
