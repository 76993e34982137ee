/** Secret generation, AES-256-GCM at rest, and the encryption key's loading (DESIGN §8, §9). */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAppError } from "@tollgate/shared/errors";
import { afterAll, describe, expect, it } from "vitest";
import { loadWebhookSecretKey, WEBHOOK_KEY_FILE } from "./key";
import {
  decryptWebhookSecret,
  encryptWebhookSecret,
  generateWebhookSecret,
  parseWebhookKey,
} from "./secrets";

const KEY = parseWebhookKey(Buffer.alloc(32, 9).toString("base64"));

describe("webhook secrets", () => {
  it("are whsec_ + 32 random bytes, never the same twice", () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it("round-trip through AES-256-GCM bound to the merchant id", () => {
    const secret = generateWebhookSecret();
    const ct = encryptWebhookSecret(KEY, "mrch_a", secret);
    expect(ct).toMatch(/^v1\.[^.]+\.[^.]+\.[^.]+$/);
    expect(ct).not.toContain(secret.slice(6));
    expect(encryptWebhookSecret(KEY, "mrch_a", secret)).not.toBe(ct); // fresh IV per encryption
    expect(decryptWebhookSecret(KEY, "mrch_a", ct)).toBe(secret);
  });

  it("do not decrypt for another merchant, under another key, tampered, or in an unknown format", () => {
    const ct = encryptWebhookSecret(KEY, "mrch_a", generateWebhookSecret());
    const otherKey = parseWebhookKey(Buffer.alloc(32, 8).toString("hex"));
    const [v, iv, tag, body] = ct.split(".");
    const flipped = Buffer.from(body!, "base64");
    flipped[0]! ^= 1;
    for (const attempt of [
      () => decryptWebhookSecret(KEY, "mrch_b", ct),
      () => decryptWebhookSecret(otherKey, "mrch_a", ct),
      () => decryptWebhookSecret(KEY, "mrch_a", [v, iv, tag, flipped.toString("base64")].join(".")),
      () => decryptWebhookSecret(KEY, "mrch_a", `v2.${iv}.${tag}.${body}`),
    ]) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect(isAppError(thrown) && thrown.code).toBe("internal_error");
    }
  });

  it("use a 32-byte key given as base64 or hex, nothing shorter", () => {
    expect(parseWebhookKey(Buffer.alloc(32, 1).toString("hex"))).toEqual(Buffer.alloc(32, 1));
    expect(parseWebhookKey(` ${Buffer.alloc(32, 1).toString("base64")}\n`)).toEqual(Buffer.alloc(32, 1));
    expect(() => parseWebhookKey("c2hvcnQ=")).toThrow(/32 bytes/);
  });
});

describe("loadWebhookSecretKey", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-webhook-key-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("development: generates $DATA_DIR/webhook-secret.key once (0600) and reads the same key after", () => {
    const dir = join(dataDir, "dev");
    const first = loadWebhookSecretKey({ dataDir: dir, development: true });
    expect(first).toHaveLength(32);
    const file = join(dir, WEBHOOK_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadWebhookSecretKey({ dataDir: dir, development: true })).toEqual(first);
    expect(parseWebhookKey(readFileSync(file, "utf8"))).toEqual(first);
  });

  it("a configured value wins; production without one refuses and writes nothing", () => {
    const value = Buffer.alloc(32, 4).toString("base64");
    expect(loadWebhookSecretKey({ value, dataDir: join(dataDir, "v"), development: true })).toEqual(
      Buffer.alloc(32, 4),
    );
    expect(existsSync(join(dataDir, "v", WEBHOOK_KEY_FILE))).toBe(false);
    expect(() => loadWebhookSecretKey({ dataDir: join(dataDir, "prod"), development: false })).toThrow(
      /required in production/,
    );
    expect(existsSync(join(dataDir, "prod"))).toBe(false);
  });
});
