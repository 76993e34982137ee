import { z } from "zod";
import { ZSignedInWallet, ZSignedMessage, ZWallet } from "./user.types";

export const ZLinkWalletRequest = ZSignedMessage;

export const ZLinkWalletResponse = z.object({
  account_id: z.string(),
  wallet: ZSignedInWallet.describe("the wallet just linked (or already linked to this account)"),
  wallets: z.array(ZWallet),
});
