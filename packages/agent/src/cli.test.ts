// The CLI as a user runs it (bin shim -> tsx -> src/bin.ts) against the real chain, API and gated merchant.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZCliEnv } from "./cli";
import {
  type Fixture,
  hardhatAccount,
  hardhatPrivateKey,
  registerMerchant,
  startFixture,
  startMerchant,
  usdcBalance,
} from "./e2e-setup";

const BIN = fileURLToPath(new URL("../bin/tollgate-agent.js", import.meta.url));

let fx: Fixture;
let merchant: Awaited<ReturnType<typeof startMerchant>>;

beforeAll(async () => {
  fx = await startFixture("cli");
  const merchantId = await registerMerchant(fx.main.api, "1.2", { standard: "0.001" });
  merchant = await startMerchant([
    { path: "/v1/search", merchantId, tier: "standard", apiBaseUrl: fx.main.proxy.url },
    { path: "/v1/echo", merchantId, tier: "standard", apiBaseUrl: fx.main.proxy.url, method: "post" },
  ]);
}, 120_000);

afterAll(async () => {
  await merchant?.close();
  await fx?.close();
});

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      cwd: fx.dataDir,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe("tollgate-agent pay", () => {
  it("--json: pays with a key file, prints one JSON object; a second run reuses the stored receipt", async () => {
    const keyFile = join(fx.dataDir, "agent.key");
    writeFileSync(keyFile, `${hardhatPrivateKey(12)}\n`, { mode: 0o600 });
    const store = join(fx.dataDir, "cli-state.json");
    const payer = hardhatAccount(12).address;
    const before = await usdcBalance(fx, payer);
    const args = [
      "pay",
      `${merchant.url}/v1/search?q=cli`,
      "--json",
      "--key-file",
      keyFile,
      "--api-origin",
      fx.main.proxy.url,
      "--rpc",
      `80002=${fx.chain.rpcUrl}`,
      "--network",
      "amoy",
      "--asset",
      "USDC",
      "--max-usd",
      "0.5",
      "--store",
      store,
    ];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0] ?? "") as {
      ok: boolean;
      payer: string;
      steps: Array<{ type: string; [key: string]: unknown }>;
      response: { status: number; quota_remaining: number; body: { query: { q: string } } };
    };
    expect(out).toMatchObject({
      ok: true,
      payer,
      response: { status: 200, quota_remaining: 99, body: { query: { q: "cli" } } },
    });
    expect(out.steps.map((s) => s.type)).toEqual([
      "rail_chosen",
      "challenge",
      "quote",
      "approval_sent",
      "approval_mined",
      "settlement_sent",
      "settlement_mined",
      "receipt",
      "response",
    ]);
    expect(out.steps[0]).toMatchObject({ rail: "aifp1", expectedCalls: 1 });
    expect(out.steps[2]).toMatchObject({ amount: "0.1", asset: "USDC", network: "amoy" });
    expect(before - (await usdcBalance(fx, payer))).toBe(100_000n);

    const quotesBefore = fx.main.proxy.counts.get("POST /v1/quote");
    const second = await run(args);
    expect(second.code, second.stderr).toBe(0);
    const again = JSON.parse(second.stdout) as typeof out;
    expect(again.steps.map((s) => s.type)).toEqual([
      "rail_chosen",
      "challenge",
      "receipt_reused",
      "response",
    ]);
    expect(again.response.quota_remaining).toBe(98);
    expect(fx.main.proxy.counts.get("POST /v1/quote")).toBe(quotesBefore);
  });

  it("readable mode with the key from the environment, POST --data", async () => {
    const result = await run(
      [
        "pay",
        `${merchant.url}/v1/echo`,
        "--data",
        '{"hello":"world"}',
        "--rpc",
        `80002=${fx.chain.rpcUrl}`,
        "--asset",
        "POL",
      ],
      { TOLLGATE_AGENT_PRIVATE_KEY: hardhatPrivateKey(13), TOLLGATE_API_ORIGINS: fx.main.proxy.url },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /402 received \(payment_required\): merchant mrch_\w+, resource \/v1\/echo/,
    );
    expect(result.stdout).toMatch(/quote qt_\w+: 0\.1 USD = \d+ atomic POL on amoy/);
    expect(result.stdout).toMatch(/settlement tx sent: 0x[0-9a-f]{64}/);
    expect(result.stdout).toMatch(/receipt rcpt_\w+: quota 100/);
    expect(result.stdout).toMatch(/paid response: HTTP 200, quota left 99/);
    expect(result.stdout).toContain('"hello":"world"');
  });

  it("refuses to run without a trusted API origin or a key (exit 2), and over the limit (exit 1, JSON error)", async () => {
    const noOrigin = await run(["pay", `${merchant.url}/v1/search`], {
      TOLLGATE_AGENT_PRIVATE_KEY: hardhatPrivateKey(14),
    });
    expect(noOrigin.code).toBe(2);
    expect(noOrigin.stderr).toContain("no trusted Tollgate API origin");
    const noKey = await run(["pay", `${merchant.url}/v1/search`, "--api-origin", fx.main.proxy.url]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("no key");
    const tooMuch = await run(
      [
        "pay",
        `${merchant.url}/v1/search`,
        "--json",
        "--max-usd",
        "0.01",
        "--rpc",
        `80002=${fx.chain.rpcUrl}`,
      ],
      { TOLLGATE_AGENT_PRIVATE_KEY: hardhatPrivateKey(14), TOLLGATE_API_ORIGINS: fx.main.proxy.url },
    );
    expect(tooMuch.code).toBe(1);
    expect(JSON.parse(tooMuch.stdout)).toMatchObject({
      ok: false,
      error: { name: "SpendLimitError", limit: "max_per_payment" },
    });
  });

  it("parses its environment once with zod", () => {
    expect(() => ZCliEnv.parse({ TOLLGATE_AGENT_PRIVATE_KEY: "0x1234" })).toThrow();
    expect(ZCliEnv.parse({ TOLLGATE_AGENT_PRIVATE_KEY: "" })).toMatchObject({
      TOLLGATE_AGENT_PRIVATE_KEY: undefined,
      TOLLGATE_AGENT_MAX_USD: "1",
      TOLLGATE_AGENT_BUDGET_USD: "10",
      TOLLGATE_AGENT_BUDGET_PERIOD_HOURS: 24,
    });
  });
});
