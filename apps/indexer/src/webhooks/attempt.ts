/**
 * One HTTP attempt of one delivery (DESIGN §8, §9): `webhook-id` is the event id on every attempt, timestamp and
 * signatures are fresh per attempt; 3xx is a failure (redirects are never followed), 410 means gone, Retry-After
 * is read. All traffic goes through the SSRF-safe client; response bodies are never stored.
 */
import { type Database, merchants, webhookEndpoints, webhookEvents } from "@tollgate/db";
import type { OutboundClient } from "@tollgate/outbound";
import { decryptWebhookSecret, serializeWebhookEnvelope, webhookHeaders } from "@tollgate/webhooks";
import { eq } from "drizzle-orm";
import { parseRetryAfter } from "./schedule";

export type Outcome =
  | { kind: "delivered"; status: number }
  | { kind: "gone"; status: number }
  | { kind: "retry"; status: number | null; error: string; retryAfterMs: number | undefined }
  | { kind: "undeliverable"; error: string };

export interface AttemptDeps {
  db: Database;
  key: Buffer;
  client: OutboundClient;
  timeoutMs: number;
}

/** Signs and sends the event to its merchant's endpoint at `at`; never throws for a receiver's failure. */
export async function attemptDelivery(
  deps: AttemptDeps,
  eventId: string,
  merchantId: string,
  at: Date,
): Promise<Outcome> {
  const row = await loadTarget(deps.db, eventId);
  if (!row) return { kind: "undeliverable", error: "event missing" };
  if (!row.url) return { kind: "undeliverable", error: "merchant has no webhook URL" };
  if (!row.secret || row.status !== "active")
    return { kind: "undeliverable", error: "webhook endpoint disabled or missing" };
  const secrets = [decryptWebhookSecret(deps.key, merchantId, row.secret)];
  if (row.previous && row.previousValidUntil && row.previousValidUntil > at) {
    secrets.push(decryptWebhookSecret(deps.key, merchantId, row.previous));
  }
  const body = serializeWebhookEnvelope({
    id: eventId,
    type: row.type,
    createdAt: row.createdAt,
    data: row.payload,
  });
  const timestamp = Math.floor(at.getTime() / 1000);
  try {
    const res = await deps.client.fetch(row.url, {
      method: "POST",
      headers: webhookHeaders(secrets, eventId, timestamp, body),
      body,
      timeoutMs: deps.timeoutMs,
    });
    return classifyResponse(res.status, res.headers["retry-after"], at);
  } catch (err) {
    const code = (err as { code?: string }).code;
    return {
      kind: "retry",
      status: null,
      error: `${code ?? "error"}: ${(err as Error).message}`,
      retryAfterMs: undefined,
    };
  }
}

/** The event with its merchant's URL and endpoint secrets (current and, during a rotation, previous). */
async function loadTarget(db: Database, eventId: string) {
  const [row] = await db
    .select({
      type: webhookEvents.type,
      payload: webhookEvents.payload,
      createdAt: webhookEvents.createdAt,
      url: merchants.webhookUrl,
      status: webhookEndpoints.status,
      secret: webhookEndpoints.secretCiphertext,
      previous: webhookEndpoints.previousSecretCiphertext,
      previousValidUntil: webhookEndpoints.previousValidUntil,
    })
    .from(webhookEvents)
    .leftJoin(merchants, eq(merchants.id, webhookEvents.merchantId))
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.merchantId, webhookEvents.merchantId))
    .where(eq(webhookEvents.id, eventId));
  return row;
}

function classifyResponse(status: number, retryAfter: string | undefined, at: Date): Outcome {
  if (status >= 200 && status < 300) return { kind: "delivered", status };
  if (status === 410) return { kind: "gone", status };
  return {
    kind: "retry",
    status,
    error: status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`,
    retryAfterMs: parseRetryAfter(retryAfter, at),
  };
}
