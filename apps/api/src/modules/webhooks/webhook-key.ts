import { loadWebhookSecretKey } from "@tollgate/webhooks";
import type { Deps } from "../../deps";

/**
 * The AES-256-GCM key for webhook secrets, shared with the indexer (DESIGN §8). Production reads
 * WEBHOOK_SECRET_KEY; development uses the generated
 * `$DATA_DIR/webhook-secret.key`, the same file the indexer uses.
 */
export function webhookKey(deps: Pick<Deps, "env">): Buffer {
  const env = deps.env;
  return loadWebhookSecretKey({
    value: env.webhookSecretKey,
    dataDir: env.dataDir,
    development: env.developmentMode,
  });
}
