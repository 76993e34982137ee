/**
 * Standard Webhooks v1 (DESIGN §8): the one implementation of signing (the dispatcher) and verifying
 * (merchants, re-exported by `@tollgate/gate`). `node:crypto` only, so `@tollgate/webhooks/signature` loads
 * no database code; a test holds it to that.
 *
 * Signature: `v1,` + base64 HMAC-SHA256 over `{id}.{timestamp}.{raw body}`, keyed with the base64-decoded
 * secret (the `whsec_` prefix is optional). Several secrets (during a rotation) give a space-separated list.
 *
 * Verifier invariants: the RAW body bytes exactly as received (a re-serialised JSON body fails); the timestamp
 * within `toleranceSec` (default 300 s) of now in either direction; at least one `v1,` signature in the list
 * matches; comparisons are constant-time.
 *
 * ```ts
 * app.post("/webhooks/tollgate", express.raw({ type: "application/json" }), (req, res) => {
 *   const event = verifyWebhook(secret, req.headers, req.body); // secret from your configuration
 *   // dedupe on event.id (= webhook-id): retries re-send the same id
 *   res.sendStatus(204);
 * });
 * ```
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookEnvelope } from "./events";

export type { WebhookEnvelope, WebhookEvent } from "./events";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
export const WEBHOOK_TOLERANCE_SEC = 300;

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason:
      | "missing_headers"
      | "bad_timestamp"
      | "timestamp_out_of_tolerance"
      | "no_valid_signature"
      | "bad_secret"
      | "bad_payload",
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

function secretKey(secret: string): Buffer {
  const body = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(body, "base64");
  if (key.length === 0)
    throw new WebhookVerificationError("bad_secret", "webhook secret is empty or not base64");
  return key;
}

/** `v1,<base64>` for `{id}.{timestamp}.{body}`. */
export function signWebhookPayload(
  secret: string,
  id: string,
  timestamp: number | string,
  body: string | Uint8Array,
): string {
  const mac = createHmac("sha256", secretKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(typeof body === "string" ? Buffer.from(body, "utf8") : body)
    .digest();
  return `v1,${mac.toString("base64")}`;
}

/** Headers for one delivery attempt: `webhook-id` is the event id, timestamp and signatures are fresh. */
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
    "webhook-signature": secrets.map((s) => signWebhookPayload(s, id, timestamp, body)).join(" "),
  };
}

/**
 * Checks headers and signature and returns the parsed envelope; throws WebhookVerificationError.
 * `body` must be the raw request bytes (e.g. `express.raw()`), not a parsed object.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  secret: string,
  headers: HeaderBag,
  body: string | Uint8Array,
  options: { toleranceSec?: number; now?: Date } = {},
): WebhookEnvelope<T> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      "missing_headers",
      "webhook-id, webhook-timestamp and webhook-signature are required",
    );
  }
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError("bad_timestamp", "webhook-timestamp is not unix seconds");
  const nowSec = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSec - Number(timestamp)) > (options.toleranceSec ?? WEBHOOK_TOLERANCE_SEC)) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      "webhook-timestamp is too old or too far in the future",
    );
  }
  const expected = Buffer.from(signWebhookPayload(secret, id, timestamp, body).slice(3), "base64");
  let valid = false;
  for (const candidate of signatures.split(" ")) {
    const [version, value] = candidate.split(",", 2);
    if (version !== "v1" || !value) continue; // unknown versions (e.g. v1a) and empty "v1," never match
    const given = Buffer.from(value, "base64");
    // Length check first: timingSafeEqual needs equal lengths; a truncated signature is simply wrong.
    if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
  }
  if (!valid) throw new WebhookVerificationError("no_valid_signature", "no webhook-signature matches");
  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  try {
    return JSON.parse(text) as WebhookEnvelope<T>;
  } catch (error) {
    throw new WebhookVerificationError("bad_payload", "webhook body is not JSON", { cause: error });
  }
}
