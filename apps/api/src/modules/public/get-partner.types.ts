import { z } from "zod";
import { ZPartnerWallet } from "./partner-wallet";

export const ZGetPartnerRequest = z.object({ wallet: ZPartnerWallet });

export const ZGetPartnerResponse = z.object({
  wallet: z.string().describe("EIP-55 checksummed"),
  name: z.string(),
  registered_at: z.string(),
  providers: z
    .array(
      z.object({
        id: z.string().describe("bridge provider id: served at /bridge/{id}/..."),
        description: z.string(),
        network: z.string(),
        merchant_wallet: z.string(),
      }),
    )
    .describe("bridge providers whose `ip_creator` is this wallet"),
  income: z
    .array(
      z.object({
        network: z.string(),
        chain_id: z.number().int(),
        token: z.string().describe("zero address for the chain's coin"),
        asset: z.string().nullable().describe("symbol from the deployment; `native` for the chain's coin"),
        settlements: z.number().int(),
        ip_creator_amount: z.string().describe("base units (integer string)"),
      }),
    )
    .describe("ip-creator legs of confirmed and final bridge settlements, by network and asset"),
  unattributed_merchant_wallets: z
    .array(z.string())
    .describe(
      "merchant wallets shared with providers naming another ip creator: their income is not counted",
    ),
});
