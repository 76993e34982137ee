import { z } from "zod";
import { ZWalletKind } from "./user.types";

export const ZUserNonceRequest = z.strictObject({ kind: ZWalletKind });

export const ZUserNonceResponse = z.object({
  kind: ZWalletKind,
  nonce: z.string().describe("single use; the message's `Nonce:` line"),
  domain: z.string().describe("the message's domain (first line)"),
  uri: z.string().describe("the message's `URI:`; any URI on this origin is accepted"),
  version: z.literal("1"),
  chain_ids: z
    .array(z.number().int())
    .describe(
      "evm: the `Chain ID:` values accepted; solana: empty (`Chain ID: mainnet|devnet|testnet|localnet` is optional)",
    ),
  issued_at: z.string().describe("suggested `Issued At:`"),
  expiration_time: z
    .string()
    .describe("`Expiration Time:` (required) may be at most this late; the nonce dies then"),
  statement: z.string().describe("a suggested statement line"),
});
