import { loadWebhookSecretKey } from "@tollgate/webhooks";

/**
 * The AES-256-GCM key for webhook secrets, shared with the indexer (DESIGN §8). Production reads
 * WEBHOOK_SECRET_KEY; development uses the generated
 * `$DATA_DIR/webhook-secret.key`, the same file the indexer uses. The app resolves it once at start.
 */
export function webhookKey(deps: {
  env: { webhookSecretKey: string | undefined; dataDir: string; developmentMode: boolean };
}): Buffer {
  const env = deps.env;
  return loadWebhookSecretKey({
    value: env.webhookSecretKey,
    dataDir: env.dataDir,
    development: env.developmentMode,
  });
}
