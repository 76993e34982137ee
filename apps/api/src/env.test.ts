import { describe, expect, it } from "vitest";
import { EnvError, loadEnv, REPO_ROOT } from "./env";

describe("loadEnv", () => {
  it("gives documented defaults on an empty environment", () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      nodeEnv: "development",
      developmentMode: true,
      host: "127.0.0.1",
      port: 3000,
      baseUrl: "http://127.0.0.1:3000",
      dataDir: `${REPO_ROOT}/.tollgate`,
      databaseUrl: undefined,
      redisUrl: undefined,
      logLevel: "info",
      rateLimits: { registrationsPerHour: 20, publicPerMinute: 300 },
    });
  });

  it("treats empty strings as unset and resolves relative DATA_DIR from the repo root", () => {
    const env = loadEnv({
      DATABASE_URL: "",
      REDIS_URL: "",
      DATA_DIR: "tmp/data",
      BASE_URL: "https://pay.example.com/",
    });
    expect(env.databaseUrl).toBeUndefined();
    expect(env.dataDir).toBe(`${REPO_ROOT}/tmp/data`);
    expect(env.baseUrl).toBe("https://pay.example.com");
  });

  it("production turns development mode off and requires the webhook secret key", () => {
    expect(loadEnv({ NODE_ENV: "production", WEBHOOK_SECRET_KEY: "a".repeat(64) }).developmentMode).toBe(
      false,
    );
    expect(() => loadEnv({ NODE_ENV: "production" })).toThrow(/WEBHOOK_SECRET_KEY/);
  });

  it("TEST_PAID_CALL_PRIVATE_KEY: unset by default, parsed outside production, refused in production", () => {
    const key = `0x${"ab".repeat(32)}`;
    const production = { NODE_ENV: "production", WEBHOOK_SECRET_KEY: "a".repeat(64) };
    expect(loadEnv({}).testPaidCalls.privateKey).toBeUndefined();
    expect(loadEnv({ TEST_PAID_CALL_PRIVATE_KEY: key }).testPaidCalls.privateKey).toBe(key);
    // An empty string counts as unset, in production too.
    expect(
      loadEnv({ ...production, TEST_PAID_CALL_PRIVATE_KEY: "" }).testPaidCalls.privateKey,
    ).toBeUndefined();
    expect(() => loadEnv({ ...production, TEST_PAID_CALL_PRIVATE_KEY: key })).toThrow(
      /TEST_PAID_CALL_PRIVATE_KEY: not allowed in production/,
    );
    expect(() => loadEnv({ TEST_PAID_CALL_PRIVATE_KEY: "0x1234" })).toThrow(/TEST_PAID_CALL_PRIVATE_KEY/);
  });

  it("receipt keys: the file store by default; the database store needs a 32-byte RECEIPT_KEYS_KEK", () => {
    expect(loadEnv({}).receiptKeyStore).toEqual({ kind: "file" });
    expect(loadEnv({ NODE_ENV: "production", WEBHOOK_SECRET_KEY: "a".repeat(64) }).receiptKeyStore).toEqual({
      kind: "file",
    });
    const kek = Buffer.alloc(32, 7);
    const database = loadEnv({ RECEIPT_KEYS_STORE: "database", RECEIPT_KEYS_KEK: kek.toString("base64") });
    expect(database.receiptKeyStore).toEqual({ kind: "database", kek });
    expect(() => loadEnv({ RECEIPT_KEYS_STORE: "database" })).toThrow(
      /RECEIPT_KEYS_KEK: required with RECEIPT_KEYS_STORE=database/,
    );
    expect(() =>
      loadEnv({ RECEIPT_KEYS_STORE: "database", RECEIPT_KEYS_KEK: Buffer.alloc(16).toString("base64") }),
    ).toThrow(EnvError);
    expect(() => loadEnv({ RECEIPT_KEYS_STORE: "vault" })).toThrow(/RECEIPT_KEYS_STORE/);
  });

  it("names every invalid variable in one readable error", () => {
    expect(() =>
      loadEnv({ PORT: "http", DATABASE_URL: "mysql://x", REDIS_URL: "localhost:6379", LOG_LEVEL: "loud" }),
    ).toThrow(EnvError);
    // Both variables in one message, each on its own line (a try/catch would pass if nothing threw).
    expect(() => loadEnv({ PORT: "99999", DATABASE_URL: "mysql://x" })).toThrow(
      /^Invalid environment:\n {2}PORT: .+\n {2}DATABASE_URL: .+$/,
    );
  });

  it("telemetry sharing: flush period and key prefix default, bad values are refused", () => {
    expect(loadEnv({}).admin.telemetry).toEqual({ flushMs: 5000, prefix: "tollgate:telemetry:" });
    expect(loadEnv({ TELEMETRY_FLUSH_MS: "1000", TELEMETRY_KEY_PREFIX: "t1:" }).admin.telemetry).toEqual({
      flushMs: 1000,
      prefix: "t1:",
    });
    for (const bad of [
      { TELEMETRY_FLUSH_MS: "0" },
      { TELEMETRY_KEY_PREFIX: "a b" },
      { TELEMETRY_KEY_PREFIX: "*" },
    ]) {
      expect(() => loadEnv(bad)).toThrow(/TELEMETRY_/);
    }
  });
});
