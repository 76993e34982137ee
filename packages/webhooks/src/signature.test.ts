/**
 * Standard Webhooks signing and verifying (DESIGN §8). The published `standardwebhooks` package is the
 * independent oracle: it verifies what we sign, and we verify what it signs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  signWebhookPayload,
  verifyWebhook,
  type WebhookVerificationError,
  webhookHeaders,
} from "./signature";

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

/** The oracle checks the timestamp against the wall clock; pin Date (only) to the attempt's time. */
function oracleVerify(secret: string, hdrs: Record<string, string>, body: string, now: Date): unknown {
  vi.setSystemTime(now);
  try {
    return new Webhook(secret).verify(body, hdrs);
  } finally {
    vi.useRealTimers();
  }
}
afterEach(() => {
  vi.useRealTimers();
});

describe("signWebhookPayload", () => {
  it("reproduces the published vector, with and without the whsec_ prefix, for strings and bytes", () => {
    expect(signWebhookPayload(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    );
    expect(signWebhookPayload(VECTOR.secret.slice(6), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    );
    expect(
      signWebhookPayload(VECTOR.secret, VECTOR.id, String(VECTOR.timestamp), Buffer.from(VECTOR.body)),
    ).toBe(VECTOR.signature);
  });

  it("agrees with the standardwebhooks package on a fresh secret and a non-ASCII body", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const body = JSON.stringify({ id: "evt_1", data: { note: "péage ✓" } });
    const now = new Date("2026-03-01T12:00:00Z");
    const ts = Math.floor(now.getTime() / 1000);
    expect(signWebhookPayload(secret, "evt_1", ts, body)).toBe(new Webhook(secret).sign("evt_1", now, body));
    expect(oracleVerify(secret, webhookHeaders([secret], "evt_1", ts, body), body, now)).toEqual(
      JSON.parse(body),
    );
  });

  it("webhookHeaders signs once per secret; the oracle accepts the list with either secret alone", () => {
    const [a, b] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)].map((k) => `whsec_${k.toString("base64")}`);
    const now = new Date("2026-03-01T12:00:00Z");
    const ts = Math.floor(now.getTime() / 1000);
    const sent = webhookHeaders([a!, b!], "evt_2", ts, "{}");
    expect(sent).toMatchObject({ "webhook-id": "evt_2", "webhook-timestamp": String(ts) });
    expect(sent["webhook-signature"]!.split(" ")).toEqual([
      new Webhook(a!).sign("evt_2", now, "{}"),
      new Webhook(b!).sign("evt_2", now, "{}"),
    ]);
    for (const secret of [a!, b!]) expect(oracleVerify(secret, sent, "{}", now)).toEqual({});
    const other = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;
    expect(() => oracleVerify(other, sent, "{}", now)).toThrow();
  });

  it("refuses an empty secret", () => {
    expect(reason(() => signWebhookPayload("whsec_", "id", 1, "{}"))).toBe("bad_secret");
  });
});

describe("verifyWebhook", () => {
  it("accepts the published vector and what the standardwebhooks package signs", () => {
    expect(verifyWebhook(VECTOR.secret, headers(), VECTOR.body, { now: at })).toEqual({ test: 2432232314 });
    expect(
      verifyWebhook(VECTOR.secret, new Headers(headers()), new TextEncoder().encode(VECTOR.body), {
        now: at,
      }),
    ).toEqual({
      test: 2432232314,
    });
    const theirs = new Webhook(VECTOR.secret).sign("evt_3", at, '{"a":1}');
    expect(
      verifyWebhook(VECTOR.secret, headers(theirs, String(VECTOR.timestamp), "evt_3"), '{"a":1}', {
        now: at,
      }),
    ).toEqual({
      a: 1,
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

  it("rejects a re-serialised body, a changed id and a body that is not JSON", () => {
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
    const notJson = "not json";
    const signed = signWebhookPayload(VECTOR.secret, VECTOR.id, VECTOR.timestamp, notJson);
    expect(reason(() => verifyWebhook(VECTOR.secret, headers(signed), notJson, { now: at }))).toBe(
      "bad_payload",
    );
  });
});

describe("the merchant-side entry points", () => {
  /** Every module specifier that `file` imports, followed through relative imports. */
  function importGraph(file: string, seen = new Set<string>()): Set<string> {
    const specifiers = new Set<string>();
    if (seen.has(file)) return specifiers;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const [, spec] of source.matchAll(/^\s*(?:import|export)\b[^;]*?\sfrom\s+"([^"]+)"/gms)) {
      if (spec!.startsWith("./")) {
        for (const s of importGraph(join(file, "..", `${spec!.slice(2)}.ts`), seen)) specifiers.add(s);
      } else specifiers.add(spec!);
    }
    return specifiers;
  }

  it("@tollgate/webhooks/signature and /events load node:crypto only (no database, no driver)", () => {
    const src = import.meta.dirname;
    expect([...importGraph(join(src, "signature.ts"))]).toEqual(["node:crypto"]);
    expect([...importGraph(join(src, "events.ts"))]).toEqual([]);
    // The check itself sees through re-exports: the package root does reach the database.
    expect(importGraph(join(src, "index.ts"))).toContain("@tollgate/db");
  });
});
