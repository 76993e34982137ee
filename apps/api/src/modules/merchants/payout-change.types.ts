import { ZMerchantPrivateView, ZPayToPatch, ZPayToView } from "@tollgate/shared";
import { z } from "zod";
import { ZMerchantIdParam } from "./get-merchant.types";

/** The payout families to set or clear, as in PATCH /v1/merchants/{id}. */
const ZPayToChange = ZPayToPatch.describe("families to set (address) or clear (null); omitted ones stay");

export const ZPayoutChallengeRequest = z.object({ id: ZMerchantIdParam, pay_to: ZPayToChange });
export const ZPayoutChallengeResponse = z.object({
  message: z
    .string()
    .describe("the exact text the current payout wallet signs (EIP-4361, or its Solana form)"),
  nonce: z.string(),
  signer: z.object({
    kind: z.enum(["evm", "solana"]),
    address: z.string().describe("the current payout address that must sign"),
  }),
  pay_to: ZPayToView.describe("the payout after the change"),
  expires_at: z.string(),
});

export const ZConfirmPayoutChangeRequest = z.object({
  id: ZMerchantIdParam,
  nonce: z.string().min(1).max(64),
  signature: z
    .string()
    .min(1)
    .max(200)
    .describe("EVM: 0x-hex personal_sign signature; Solana: base58 Ed25519 signature"),
  pay_to: ZPayToChange.describe("the same change the challenge was issued for"),
});
export const ZConfirmPayoutChangeResponse = ZMerchantPrivateView;
