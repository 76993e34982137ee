import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  envBoolean,
  envDataPaths,
  envDefault,
  envInteger,
  envIssueLines,
  envLogLevel,
  envNodeEnv,
  envOptional,
  envPrivateKey,
  envRequired,
  envUrl,
  parseEnv,
} from "./env";

class TestEnvError extends Error {}

const parse = <T extends z.ZodType>(schema: T, value: string | undefined) =>
  z.object({ VAR: schema }).safeParse(value === undefined ? {} : { VAR: value });

describe("env helpers", () => {
  it("an empty string is the same as an unset variable, for optional, default and required", () => {
    expect(parse(envOptional(z.string()), "")).toEqual({ success: true, data: { VAR: undefined } });
    expect(parse(envOptional(z.string()), undefined)).toEqual({ success: true, data: { VAR: undefined } });
    expect(parse(envDefault(z.string(), "fallback"), "")).toEqual({
      success: true,
      data: { VAR: "fallback" },
    });
    expect(parse(envDefault(envInteger(), 7), "")).toEqual({ success: true, data: { VAR: 7 } });
    expect(parse(envRequired(z.string()), "").success).toBe(false);
    expect(parse(envRequired(z.string()), undefined).success).toBe(false);
    expect(parse(envRequired(z.string()), "x")).toEqual({ success: true, data: { VAR: "x" } });
  });

  it("integers are decimal, whole and within bounds", () => {
    const port = envDefault(envInteger({ min: 1, max: 65_535 }), 3000);
    expect(parse(port, "8080")).toEqual({ success: true, data: { VAR: 8080 } });
    expect(parse(port, undefined)).toEqual({ success: true, data: { VAR: 3000 } });
    for (const bad of ["0", "65536", "1.5", "http", "-1"]) {
      expect(parse(port, bad).success, bad).toBe(false);
    }
    expect(parse(envDefault(envInteger(), 5), "0")).toEqual({ success: true, data: { VAR: 0 } });
    expect(parse(envDefault(envInteger(), 5), "-1").success).toBe(false);
  });

  it("booleans accept true/1 and false/0 only", () => {
    const flag = envDefault(envBoolean(), true);
    expect(parse(flag, "false")).toEqual({ success: true, data: { VAR: false } });
    expect(parse(flag, "0")).toEqual({ success: true, data: { VAR: false } });
    expect(parse(flag, "1")).toEqual({ success: true, data: { VAR: true } });
    expect(parse(flag, "")).toEqual({ success: true, data: { VAR: true } });
    expect(parse(envOptional(envBoolean()), undefined)).toEqual({ success: true, data: { VAR: undefined } });
    for (const bad of ["yes", "TRUE", "no"]) expect(parse(flag, bad).success, bad).toBe(false);
  });

  it("URLs must use one of the allowed protocols, with the parser's own message when given", () => {
    const database = envOptional(envUrl({ protocol: /^postgres(ql)?$/ }));
    expect(parse(database, "postgres://u@h:5432/db").success).toBe(true);
    expect(parse(database, "postgresql://h/db").success).toBe(true);
    expect(parse(database, "mysql://h/db").success).toBe(false);
    expect(parse(database, "localhost:5432").success).toBe(false);
    const http = envOptional(envUrl({ protocol: /^https?$/, error: "must be an http(s) URL" }));
    const refused = parse(http, "ftp://example.com");
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe("must be an http(s) URL");
    expect(parse(envOptional(envUrl()), "ws://127.0.0.1:8545").success).toBe(true);
  });

  it("private keys are 0x + 64 hex digits", () => {
    const key = envOptional(envPrivateKey());
    expect(parse(key, `0x${"aB".repeat(32)}`)).toEqual({
      success: true,
      data: { VAR: `0x${"aB".repeat(32)}` },
    });
    const short = parse(key, `0x${"a".repeat(63)}`);
    expect(short.success).toBe(false);
    expect(short.error?.issues[0]?.message).toBe("must be 0x + 64 hex");
    expect(parse(key, "a".repeat(64)).success).toBe(false);
  });

  it("NODE_ENV and LOG_LEVEL have their documented defaults and closed sets", () => {
    const schema = z.object({ NODE_ENV: envNodeEnv(), LOG_LEVEL: envLogLevel() });
    expect(schema.parse({})).toEqual({ NODE_ENV: "development", LOG_LEVEL: "info" });
    expect(schema.parse({ NODE_ENV: "", LOG_LEVEL: "" })).toEqual({
      NODE_ENV: "development",
      LOG_LEVEL: "info",
    });
    expect(schema.parse({ NODE_ENV: "production", LOG_LEVEL: "silent" })).toEqual({
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
    });
    expect(schema.safeParse({ NODE_ENV: "staging" }).success).toBe(false);
    expect(schema.safeParse({ LOG_LEVEL: "loud" }).success).toBe(false);
  });

  it("parseEnv names every failing variable in one error of the caller's class", () => {
    const schema = z.object({
      PORT: envDefault(envInteger({ max: 65_535 }), 3000),
      REDIS_URL: envOptional(envUrl({ protocol: /^rediss?$/ })),
      HOST: envDefault(z.string(), "127.0.0.1"),
    });
    expect(parseEnv(schema, { PORT: "", HOST: "::1" }, (m) => new TestEnvError(m))).toEqual({
      PORT: 3000,
      REDIS_URL: undefined,
      HOST: "::1",
    });
    let thrown: unknown;
    try {
      parseEnv(schema, { PORT: "99999", REDIS_URL: "localhost:6379" }, (m) => new TestEnvError(m), "Bad env");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TestEnvError);
    const lines = (thrown as Error).message.split("\n");
    expect(lines[0]).toBe("Bad env:");
    expect(lines.slice(1).map((line) => line.split(":")[0])).toEqual(["  PORT", "  REDIS_URL"]);
  });

  it("issue lines fall back to (root) and accept a path prefix", () => {
    const error = z
      .object({ a: z.string() })
      .refine(() => false, "whole object")
      .safeParse({ a: "x" }).error!;
    expect(envIssueLines(error)).toEqual(["  (root): whole object"]);
    const nested = z.object({ a: z.string() }).safeParse({ a: 1 }).error!;
    expect(envIssueLines(nested, "providers.0")[0]).toMatch(/^ {2}providers\.0\.a: /);
  });

  it("data paths: relative to the repository root, .tollgate by default, the manifest inside the data directory", () => {
    expect(envDataPaths("/repo", {})).toMatchObject({
      dataDir: "/repo/.tollgate",
      manifestPath: "/repo/.tollgate/deployments.json",
    });
    const set = envDataPaths("/repo", { DATA_DIR: "data", DEPLOYMENT_MANIFEST: "/etc/manifest.json" });
    expect(set).toMatchObject({ dataDir: "/repo/data", manifestPath: "/etc/manifest.json" });
    expect(set.fromRoot("keys/a.json")).toBe("/repo/keys/a.json");
    expect(envDataPaths("/repo", { DATA_DIR: "/var/tollgate" }).manifestPath).toBe(
      "/var/tollgate/deployments.json",
    );
  });
});
