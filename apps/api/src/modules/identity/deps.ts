import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { AdminAuth } from "../operators";
import type { IdentityServices } from "./identity-services";

/** What the identity module is handed by the app (docs/architecture.md). */
export interface IdentityModuleDeps {
  db: { db: Database };
  clock: Clock;
  identity: IdentityServices;
  /** IDENTITY_PREFIX and the nonce lifetime, as the protocol documents state them. */
  prefix: string;
  nonceTtlSeconds: number;
  adminAuth: AdminAuth;
}
