/** Flags and environment (config.ts): keys from files or the environment, clear reasons, ConfigError otherwise. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config";

const dir = mkdtempSync(join(tmpdir(), "tollgate-mcp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

describe("loadConfig", () => {
  it("reads the key from a file, trusted origins and limits from the environment", () => {
    writeFileSync(join(dir, "good.key"), `${KEY}\n`);
    const config = loadConfig(
      ["--stdio"],
      {
        TOLLGATE_AGENT_KEY_FILE: join(dir, "good.key"),
        TOLLGATE_API_ORIGINS: "https://api.example.com/, http://127.0.0.1:3000",
        TOLLGATE_RPC_URLS: "80002=http://127.0.0.1:8547",
        TOLLGATE_MCP_MAX_USD_PER_CALL: "0.25",
      },
      dir,
    );
    expect(config?.account.ok && config.account.value.address).toBe(
      "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    );
    expect(config?.apiOrigins).toEqual(["https://api.example.com", "http://127.0.0.1:3000"]);
    expect(config?.apiUrl).toBe("https://api.example.com");
    expect(config?.rpcUrls.get(80002)).toBe("http://127.0.0.1:8547");
    expect(config?.limits).toMatchObject({
      maxPerCallUsd: "0.25",
      sessionBudgetUsd: "5",
      maxPerPaymentUsd: "1",
    });
    expect(config?.storePath).toBe(join(dir, ".tollgate", "mcp-agent-state.json"));
  });

  it("keeps a bad or missing key as a reason naming the file, without the key text", () => {
    writeFileSync(join(dir, "bad.key"), "0xnotakey-secretish\n");
    const bad = loadConfig(["--stdio"], { TOLLGATE_AGENT_KEY_FILE: join(dir, "bad.key") }, dir);
    expect(bad?.account).toEqual({
      ok: false,
      reason: `key file ${join(dir, "bad.key")}: must be a 0x-prefixed 32-byte hex private key`,
    });
    const missing = loadConfig(["--stdio"], { TOLLGATE_AGENT_KEY_FILE: join(dir, "nope.key") }, dir);
    expect(missing?.account).toEqual({
      ok: false,
      reason: `key file ${join(dir, "nope.key")} cannot be read (ENOENT)`,
    });
    expect(loadConfig(["--stdio"], {}, dir)?.account.ok).toBe(false);
    const identity = loadConfig(
      ["--stdio"],
      { TOLLGATE_SOLANA_KEY_FILE: join(dir, "bad.key") },
      dir,
    )?.identity;
    expect(identity?.ok).toBe(false);
  });

  it("refuses bad flags and variables with one message", () => {
    expect(() => loadConfig([], {}, dir)).toThrow(ConfigError);
    expect(() => loadConfig(["--stdio", "--http"], {}, dir)).toThrow(/one transport/);
    expect(() => loadConfig(["--stdio", "--key", KEY], {}, dir)).toThrow(ConfigError);
    expect(() => loadConfig(["--http"], {}, dir)).toThrow(/TOLLGATE_MCP_HTTP_TOKEN/);
    expect(() => loadConfig(["--http"], { TOLLGATE_MCP_HTTP_TOKEN: "short" }, dir)).toThrow(/at least 24/);
    expect(() => loadConfig(["--stdio"], { TOLLGATE_MCP_SESSION_BUDGET_USD: "-1" }, dir)).toThrow(
      /TOLLGATE_MCP_SESSION_BUDGET_USD/,
    );
    expect(() => loadConfig(["--stdio"], { TOLLGATE_API_ORIGINS: "ftp://x" }, dir)).toThrow(ConfigError);
    expect(() => loadConfig(["--stdio"], { TOLLGATE_ADMIN_TOKEN: "msec_abc" }, dir)).toThrow(/ases_/);
    expect(() => loadConfig(["--stdio"], { TOLLGATE_RPC_URLS: "polygon" }, dir)).toThrow(/chainId=url/);
    expect(loadConfig(["--help"], {}, dir)).toBeUndefined();
  });
});
