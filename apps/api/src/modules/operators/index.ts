/** The operators module's public entry: what the app and other modules may use. */
export { ADMIN_ROLES_FOR_CLI, adminView, createAdmin } from "./admin-accounts";
export {
  type AdminAuth,
  adminCredential,
  adminProcedure,
  assertAdminSameOrigin,
  createAdminAuth,
  ownerProcedure,
} from "./admin-procedure";
export type { AdminSessionPolicy, AuthenticatedAdmin } from "./admin-sessions";
export { bootstrapFirstAdmin, readPasswordFile } from "./bootstrap";
export type { OperatorsDeps } from "./deps";
export { createLoginLimiter, type LoginLimiter } from "./login-limiter";
export { unlockSignIns } from "./login-unlock";
export { operatorsModule } from "./router";
