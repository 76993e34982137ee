import type { Database } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { MerchantAuth } from "../merchants";
import type { AdminAuth } from "../operators";

/** What the webhooks module is handed by the app (docs/architecture.md). */
export interface WebhooksDeps {
  db: { db: Database };
  clock: Clock;
  merchantAuth: MerchantAuth;
  adminAuth: AdminAuth;
  /** Encrypts merchants' webhook secrets at rest (WEBHOOK_SECRET_KEY), shared with the indexer (DESIGN.md §8). */
  webhookSecretKey: Buffer;
}
