import { z } from "zod";
import { ZWallet } from "./user.types";

export const ZUserMeResponse = z.object({
  account_id: z.string().describe("acct_..."),
  wallets: z.array(ZWallet),
  session_expires_at: z.string(),
});
