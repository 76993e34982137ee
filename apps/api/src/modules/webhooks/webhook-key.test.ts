import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEnv } from "../../env";
import { webhookKey } from "./webhook-key";

/** Not a route: the helper that resolves the AES-256-GCM key for webhook secrets (DESIGN §8). */
describe("webhookKey", () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-whkey-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("development: generates $DATA_DIR/webhook-secret.key once (owner-only) and keeps using it", () => {
    const dir = dataDir();
    const env = loadEnv({ DATA_DIR: dir, NODE_ENV: "development" });
    const file = join(dir, "webhook-secret.key");
    expect(existsSync(file)).toBe(false);
    const first = webhookKey({ env });
    expect(first).toHaveLength(32);
    // The file the indexer reads too: base64 of exactly these 32 bytes.
    expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64").equals(first)).toBe(true);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(webhookKey({ env }).equals(first)).toBe(true);
    // Another process over the same DATA_DIR resolves the same key.
    expect(webhookKey({ env: loadEnv({ DATA_DIR: dir }) }).equals(first)).toBe(true);
    expect(webhookKey({ env: loadEnv({ DATA_DIR: dataDir() }) }).equals(first)).toBe(false);
  });

  it("WEBHOOK_SECRET_KEY wins, as hex or base64, and no file is written", () => {
    const dir = dataDir();
    const raw = Buffer.alloc(32, 7);
    for (const text of [raw.toString("hex"), raw.toString("base64")]) {
      const env = loadEnv({ DATA_DIR: dir, NODE_ENV: "production", WEBHOOK_SECRET_KEY: text });
      expect(webhookKey({ env }).equals(raw)).toBe(true);
    }
    expect(existsSync(join(dir, "webhook-secret.key"))).toBe(false);
  });

  it("error: a key that is not 32 bytes is refused, never padded or truncated", () => {
    const env = loadEnv({ DATA_DIR: dataDir(), WEBHOOK_SECRET_KEY: Buffer.alloc(16, 1).toString("hex") });
    expect(() => webhookKey({ env })).toThrow(/32 bytes/);
  });
});
