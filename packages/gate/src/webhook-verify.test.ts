import { describe, expect, it } from "vitest";
import { signWebhookPayload, verifyWebhook, type WebhookVerificationError } from "./webhook-verify";

// Standard Webhooks known-answer vector (libraries/javascript/src/webhook.test.ts).
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const at = new Date(VECTOR.timestamp * 1000);
const headers = (signature = VECTOR.signature, timestamp = String(VECTOR.timestamp), id = VECTOR.id) => ({
  "webhook-id": id,
  "webhook-timestamp": timestamp,
  "webhook-signature": signature,
});
const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as WebhookVerificationError).reason;
  }
  return "accepted";
};

describe("verifyWebhook", () => {
  it("reproduces the published vector, with and without the whsec_ prefix", () => {
    expect(signWebhookPayload(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    );
    expect(signWebhookPayload(VECTOR.secret.slice(6), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    );
    expect(verifyWebhook(VECTOR.secret, headers(), VECTOR.body, { now: at })).toEqual({ test: 2432232314 });
    expect(
      verifyWebhook(VECTOR.secret, new Headers(headers()), new TextEncoder().encode(VECTOR.body), {
        now: at,
      }),
    ).toEqual({
      test: 2432232314,
    });
  });

  it("rejects missing headers and non-numeric timestamps", () => {
    expect(
      reason(() => verifyWebhook(VECTOR.secret, { "webhook-id": VECTOR.id }, VECTOR.body, { now: at })),
    ).toBe("missing_headers");
    expect(
      reason(() =>
        verifyWebhook(VECTOR.secret, headers(VECTOR.signature, "16142x"), VECTOR.body, { now: at }),
      ),
    ).toBe("bad_timestamp");
  });

  it("rejects timestamps more than 5 minutes away, in either direction", () => {
    const late = new Date(at.getTime() + 301_000);
    const early = new Date(at.getTime() - 301_000);
    expect(reason(() => verifyWebhook(VECTOR.secret, headers(), VECTOR.body, { now: late }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(reason(() => verifyWebhook(VECTOR.secret, headers(), VECTOR.body, { now: early }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(
      reason(() =>
        verifyWebhook(VECTOR.secret, headers(), VECTOR.body, { now: new Date(at.getTime() + 299_000) }),
      ),
    ).toBe("accepted");
  });

  it("rejects truncated signatures, an empty v1, and only unknown versions", () => {
    for (const sig of [
      VECTOR.signature.slice(0, -4),
      "v1,",
      "v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
      "v2,abc",
    ]) {
      expect(reason(() => verifyWebhook(VECTOR.secret, headers(sig), VECTOR.body, { now: at }))).toBe(
        "no_valid_signature",
      );
    }
  });

  it("accepts when one of several signatures is valid (rotation)", () => {
    const sig = `v1,Zm9vYmFyYmF6cXV4cXV1eGZvb2JhcmJhenF1eHF1dXg= ${VECTOR.signature}`;
    expect(reason(() => verifyWebhook(VECTOR.secret, headers(sig), VECTOR.body, { now: at }))).toBe(
      "accepted",
    );
  });

  it("rejects a re-serialised body and a changed id", () => {
    const reserialised = JSON.stringify(JSON.parse(VECTOR.body));
    expect(reason(() => verifyWebhook(VECTOR.secret, headers(), reserialised, { now: at }))).toBe(
      "no_valid_signature",
    );
    expect(
      reason(() =>
        verifyWebhook(
          VECTOR.secret,
          headers(VECTOR.signature, String(VECTOR.timestamp), "msg_other"),
          VECTOR.body,
          { now: at },
        ),
      ),
    ).toBe("no_valid_signature");
  });
});
