import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { RateLimiter } from "../../infra/rate-limit";
import type { ChainRegistry } from "../chains";
import type { UserAuth } from "./user-procedure";
import type { UserSignin } from "./user-signin";

/** What the users module is handed by the app (docs/architecture.md). */
export interface UsersModuleDeps {
  db: { db: Database };
  clock: Clock;
  /** Asset names and explorer links of an agent's settlements. */
  chains: ChainRegistry;
  userAuth: UserAuth;
  signin: UserSignin;
  limiters: { publicSurface: RateLimiter };
}
