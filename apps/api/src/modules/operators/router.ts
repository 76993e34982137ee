/**
 * The operators module (SPEC §4.3, §5; DESIGN.md §9): operator accounts, sign-in, the server-side sessions and the
 * `adminSession` procedures every other module's operator endpoints are built on. Published under `admin`.
 */
import { adminLoginProcedure } from "./admin-login";
import { adminLogoutProcedure } from "./admin-logout";
import { adminMeProcedure } from "./admin-me";
import { adminSessionProcedure } from "./admin-session";
import type { OperatorsDeps } from "./deps";

export function operatorsModule(deps: OperatorsDeps) {
  return {
    procedures: {
      login: adminLoginProcedure(deps),
      logout: adminLogoutProcedure(deps),
      me: adminMeProcedure(deps),
      session: adminSessionProcedure(deps),
    },
  };
}
