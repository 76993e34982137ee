import { z } from "zod";
import { ZSignedInWallet, ZSignedMessage, ZWallet } from "./user.types";

export const ZUserLoginRequest = ZSignedMessage;

export const ZUserLoginResponse = z.object({
  account_id: z.string().describe("acct_..."),
  wallet: ZSignedInWallet.describe("the wallet that signed in"),
  wallets: z.array(ZWallet),
  token: z.string().describe("usr_...: send as Authorization: Bearer (agents); browsers use the cookie"),
  token_type: z.literal("Bearer"),
  expires_at: z
    .string()
    .describe("idle expiry; using the session pushes it forward up to the absolute limit"),
});
