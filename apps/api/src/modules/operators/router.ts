/**
 * The operators module (SPEC §4.3, §5; DESIGN.md §9): operator accounts, sign-in, the server-side sessions and the
 * `adminSession` procedures every other module's operator endpoints are built on. Published under `admin`.
 */
import { acceptInvitationProcedure } from "./accept-invitation";
import { adminLoginProcedure } from "./admin-login";
import { adminLogoutProcedure } from "./admin-logout";
import { adminMeProcedure } from "./admin-me";
import { adminSessionProcedure } from "./admin-session";
import { changeOperatorRoleProcedure } from "./change-operator-role";
import type { OperatorsDeps } from "./deps";
import { disableOperatorProcedure } from "./disable-operator";
import { enableOperatorProcedure } from "./enable-operator";
import { inviteOperatorProcedure } from "./invite-operator";
import { listInvitationsProcedure } from "./list-invitations";
import { revokeInvitationProcedure } from "./revoke-invitation";
import { revokeOperatorSessionsProcedure } from "./revoke-operator-sessions";

export function operatorsModule(deps: OperatorsDeps) {
  return {
    procedures: {
      login: adminLoginProcedure(deps),
      logout: adminLogoutProcedure(deps),
      me: adminMeProcedure(deps),
      session: adminSessionProcedure(deps),
      /** Owner-only account management (decision 0071). */
      operatorRole: changeOperatorRoleProcedure(deps),
      disableOperator: disableOperatorProcedure(deps),
      enableOperator: enableOperatorProcedure(deps),
      revokeOperatorSessions: revokeOperatorSessionsProcedure(deps),
      invite: inviteOperatorProcedure(deps),
      invitations: listInvitationsProcedure(deps),
      revokeInvitation: revokeInvitationProcedure(deps),
      acceptInvitation: acceptInvitationProcedure(deps),
    },
  };
}
