/** The webhooks module's public entry. */
export type { WebhooksDeps } from "./deps";
export { webhooksModule } from "./router";
export { webhookKey } from "./webhook-key";
