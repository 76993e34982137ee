import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { AdminAuth } from "./admin-procedure";
import type { LoginLimiter } from "./login-limiter";

/** What the operators module is handed by the app (docs/architecture.md). */
export interface OperatorsDeps {
  db: { db: Database };
  clock: Clock;
  adminAuth: AdminAuth;
  /** The strict sign-in limiter (SPEC §8), by address and by email + address. */
  loginLimiter: LoginLimiter;
}
