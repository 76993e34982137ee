import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { ReceiptKeyStore } from "./receipt-keys";

/** What the receipts module is handed by the app (docs/architecture.md). */
export interface ReceiptsDeps {
  db: { db: Database };
  clock: Clock;
  keys: ReceiptKeyStore;
  /** JWKS_CACHE_SECONDS: how long clients may cache the key set. */
  jwksCacheSeconds: number;
}
