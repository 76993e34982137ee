/**
 * Standard Webhooks v1 signing (DESIGN §8, checklist B2): HMAC-SHA256 over `{id}.{timestamp}.{body}`
 * with the base64-decoded secret (the `whsec_` prefix is optional), as `v1,<base64>`. Several secrets
 * (during rotation) give a space-separated list.
 */
import { createHmac } from "node:crypto";
import { WEBHOOK_SECRET_PREFIX } from "./secrets";

export function secretBytes(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    "base64",
  );
}

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** Headers for one attempt; the timestamp and signatures are fresh per attempt, the id is the event id. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "Tollgate-Webhooks/1",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((s) => signWebhook(s, id, timestamp, body)).join(" "),
  };
}
