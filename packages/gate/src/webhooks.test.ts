/**
 * The gate's webhook verifier is `@tollgate/webhooks/signature` under the names merchants use (the full
 * behaviour is tested there, against the standardwebhooks package). Here: the public names still work.
 */
import * as signature from "@tollgate/webhooks/signature";
import { describe, expect, it } from "vitest";
import {
  signWebhookPayload,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SEC,
  type WebhookEnvelope,
  WebhookVerificationError,
} from "./index";

// Standard Webhooks known-answer vector (libraries/javascript/src/webhook.test.ts).
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const at = new Date(VECTOR.timestamp * 1000);
const headers = {
  "webhook-id": VECTOR.id,
  "webhook-timestamp": String(VECTOR.timestamp),
  "webhook-signature": VECTOR.signature,
};

describe("@tollgate/gate webhook verifier", () => {
  it("is the one implementation in @tollgate/webhooks/signature", () => {
    expect(verifyWebhook).toBe(signature.verifyWebhook);
    expect(signWebhookPayload).toBe(signature.signWebhookPayload);
    expect(WebhookVerificationError).toBe(signature.WebhookVerificationError);
    expect(WEBHOOK_TOLERANCE_SEC).toBe(300);
  });

  it("verifies the published vector and rejects a tampered body with a typed error", () => {
    expect(signWebhookPayload(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    );
    const envelope: WebhookEnvelope = verifyWebhook(VECTOR.secret, headers, VECTOR.body, { now: at });
    expect(envelope).toEqual({ test: 2432232314 });
    let thrown: unknown;
    try {
      verifyWebhook(VECTOR.secret, headers, '{"test": 1}', { now: at });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WebhookVerificationError);
    expect((thrown as WebhookVerificationError).reason).toBe("no_valid_signature");
  });
});
