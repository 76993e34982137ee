/**
 * The webhooks module (SPEC §6; DESIGN.md §8; docs/webhooks.md): a merchant's signing secret, test deliveries and
 * delivery history, and the operators' delivery dashboard with manual replay. Published under `webhook` and
 * `dashboard`.
 */
import { dashboardWebhooksProcedure } from "./dashboard-webhooks";
import type { WebhooksDeps } from "./deps";
import { listWebhookDeliveriesProcedure } from "./list-webhook-deliveries";
import { replayWebhookProcedure } from "./replay-webhook";
import { rotateWebhookSecretProcedure } from "./rotate-webhook-secret";
import { sendTestWebhookProcedure } from "./send-test-webhook";

export function webhooksModule(deps: WebhooksDeps) {
  return {
    procedures: {
      rotateSecret: rotateWebhookSecretProcedure(deps),
      sendTest: sendTestWebhookProcedure(deps),
      deliveries: listWebhookDeliveriesProcedure(deps),
    },
    dashboard: { webhooks: dashboardWebhooksProcedure(deps), replayWebhook: replayWebhookProcedure(deps) },
  };
}
