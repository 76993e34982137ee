import type { UsersModuleDeps } from "./deps";
import { ZLinkWalletRequest, ZLinkWalletResponse } from "./link-wallet.types";
import { linkWallet } from "./user-accounts";
import { userAuthDeps } from "./user-auth-deps";
import { userProcedure } from "./user-procedure";

/**
 * POST /api/user/wallets: links another wallet to the signed-in account with a fresh nonce and a signed
 * message of the same kind as sign-in. A wallet of another account: 409 `wallet_already_linked`.
 */
export const linkWalletProcedure = (deps: UsersModuleDeps) =>
  userProcedure(deps.userAuth)
    .meta({
      openapi: {
        method: "POST",
        path: "/api/user/wallets",
        tags: ["users"],
        summary: "Link another wallet",
        description:
          "Body as for POST /api/user/login, signed by the wallet to link (with its own nonce). Linking a wallet the account already holds is not an error.",
        errorResponses: [400, 401, 403, 409, 415],
      },
    })
    .input(ZLinkWalletRequest)
    .output(ZLinkWalletResponse)
    .mutation(async ({ ctx, input }) => {
      const { wallet, wallets } = await linkWallet(userAuthDeps(deps), ctx.user.accountId, input);
      ctx.log.info({ account_id: ctx.user.accountId, wallet_kind: wallet.kind }, "wallet linked");
      return {
        account_id: ctx.user.accountId,
        wallet: { kind: wallet.kind, address: wallet.address },
        wallets,
      };
    });
