import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { AdminAuth } from "./admin-procedure";
import type { LoginLimiter } from "./login-limiter";

/** What the operators module is handed by the app (docs/architecture.md). */
export interface OperatorsDeps {
  db: { db: Database };
  clock: Clock;
  adminAuth: AdminAuth;
  /** The sign-in limiter (SPEC §8; decision 0064): growing waits per client and per account + client. */
  loginLimiter: LoginLimiter;
}
