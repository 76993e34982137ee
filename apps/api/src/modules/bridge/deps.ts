import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { AdminAuth } from "../operators";
import type { ProviderAdminDeps } from "./provider-admin-service";
import type { X402Monitor } from "./x402-monitor";

/** What the bridge module's operator endpoints are handed by the app (docs/architecture.md). */
export type BridgeModuleDeps = ProviderAdminDeps & {
  db: { db: Database };
  clock: Clock;
  adminAuth: AdminAuth;
  /** The bridges mounted in this process, their relayers and facilitator counts. */
  x402: X402Monitor;
};
