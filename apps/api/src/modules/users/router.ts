/**
 * The users module (SPEC §4.2, §5; docs/users.md): wallet sign-in (SIWE and Solana), the `userSession` scheme,
 * linked wallets, and an agent's public usage. Published under the tRPC namespaces `user` and `agent`.
 */
import type { UsersModuleDeps } from "./deps";
import { getPublicUsageProcedure } from "./get-public-usage";
import { linkWalletProcedure } from "./link-wallet";
import { userLoginProcedure } from "./user-login";
import { userLogoutProcedure } from "./user-logout";
import { userMeProcedure } from "./user-me";
import { userNonceProcedure } from "./user-nonce";

export function usersModule(deps: UsersModuleDeps) {
  return {
    procedures: {
      nonce: userNonceProcedure(deps),
      login: userLoginProcedure(deps),
      logout: userLogoutProcedure(deps),
      me: userMeProcedure(deps),
      linkWallet: linkWalletProcedure(deps),
    },
    publicUsage: getPublicUsageProcedure(deps),
  };
}
