// The published packages as their users get them (docs/publishing.md): `pnpm pack` of @tollgate/gate,
// @tollgate/agent and @tollgate/mcp, installed from the tarballs into a fresh project outside the workspace, then
// used from plain Node ESM (no tsx) and type-checked with tsc against the shipped .d.ts. The gate and the agent run
// against a real local chain and the real API: the agent pays the gate's route through the API and the gate
// verifies the receipt; the packed `tollgate-agent` bin pays a second route; the packed `tollgate-mcp` bin answers
// MCP `initialize` and `tools/list` over stdio.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Fixture,
  hardhatAccount,
  hardhatPrivateKey,
  registerMerchant,
  startFixture,
  usdcBalance,
} from "./e2e-setup";
import { installConsumer, packAll, plainEnv, typecheckConsumer } from "./packed-install";

const run = promisify(execFile);
const AMOY = 80002;

let fx: Fixture;
let packs: string;
let consumer: string;
let merchantId: string;
let gateServer: ChildProcess | undefined;
let gateUrl: string;
let typecheck: Promise<{ code: number; output: string }>;

/** Starts the consumer's gate-server.mjs and waits for the URL it prints. */
async function startGateServer(): Promise<string> {
  const child = spawn(process.execPath, ["gate-server.mjs"], {
    cwd: consumer,
    env: plainEnv({ TOLLGATE_API_URL: fx.main.proxy.url, TOLLGATE_MERCHANT_ID: merchantId }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  gateServer = child;
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n")[0];
      if (stdout.includes("\n") && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`gate-server.mjs exited ${code}: ${stderr}`)));
  });
}

beforeAll(async () => {
  packs = mkdtempSync(join(tmpdir(), "tollgate-packs-"));
  const installed = packAll(packs).then(installConsumer);
  fx = await startFixture("packed");
  merchantId = await registerMerchant(fx.main.api, "1.2", { standard: "0.001" });
  consumer = await installed;
  // tsc runs beside the paid calls; its result is asserted in its own test.
  typecheck = typecheckConsumer(consumer);
  gateUrl = await startGateServer();
}, 180_000);

afterAll(async () => {
  gateServer?.kill("SIGTERM");
  await typecheck?.catch(() => undefined);
  await fx?.close();
  for (const dir of [packs, consumer]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("published packages, installed from their tarballs", () => {
  it("ship compiled ESM, types and source maps, no workspace-only dependency, and no TypeScript runtime", () => {
    for (const name of ["gate", "agent", "mcp"]) {
      const root = join(consumer, "node_modules", "@tollgate", name);
      const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
        exports: Record<string, { types: string; import: string }>;
        dependencies: Record<string, string>;
        private?: boolean;
      };
      expect(manifest.private).toBeUndefined();
      expect(readFileSync(join(root, "README.md"), "utf8")).toContain(`@tollgate/${name}`);
      for (const entry of Object.values(manifest.exports)) {
        expect(existsSync(join(root, entry.import))).toBe(true);
        expect(existsSync(join(root, entry.types))).toBe(true);
      }
      // Only published packages: @tollgate/agent is one, shared and webhooks are bundled in.
      const workspaceOnly = Object.keys(manifest.dependencies).filter(
        (dep) => dep.startsWith("@tollgate/") && dep !== "@tollgate/agent",
      );
      expect(workspaceOnly).toEqual([]);
      // Compiled JavaScript only, each chunk with code mapped back to the TypeScript it came from.
      const dist = readdirSync(join(root, "dist"));
      expect(dist.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
      const maps = dist.filter((file) => file.endsWith(".js.map"));
      expect(maps.length).toBeGreaterThan(0);
      for (const map of maps) {
        const json = JSON.parse(readFileSync(join(root, "dist", map), "utf8")) as {
          sourcesContent?: string[];
        };
        expect(json.sourcesContent?.length).toBeGreaterThan(0);
      }
    }
    expect(
      readdirSync(join(consumer, "node_modules", ".pnpm")).filter((dir) => dir.startsWith("tsx@")),
    ).toEqual([]);
    for (const bin of ["tollgate-agent", "tollgate-mcp"]) {
      const target = realpathSync(
        join(consumer, "node_modules", "@tollgate", bin.replace("tollgate-", ""), "dist", "bin.js"),
      );
      expect(readFileSync(target, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    }
  });

  it("the agent library pays the gate's route through the API; the gate verifies the receipt", async () => {
    const payer = hardhatAccount(16).address;
    const before = await usdcBalance(fx, payer);
    const { stdout } = await run(process.execPath, ["agent-pay.mjs"], {
      cwd: consumer,
      env: plainEnv({
        AGENT_PRIVATE_KEY: hardhatPrivateKey(16),
        RPC_URL: fx.chain.rpcUrl,
        CHAIN_ID: String(AMOY),
        TOLLGATE_API_URL: fx.main.proxy.url,
        TARGET_URL: `${gateUrl}/v1/library`,
      }),
    });
    const out = JSON.parse(stdout) as {
      address: string;
      status: number;
      body: Record<string, unknown>;
      steps: string[];
    };
    expect(out.address).toBe(payer);
    expect(out.status).toBe(200);
    expect(out.steps).toEqual(
      expect.arrayContaining(["challenge", "quote", "settlement_mined", "receipt", "response"]),
    );
    // The handler runs only behind a verified receipt, and answers with the id of the receipt the API issued.
    expect(out.body).toMatchObject({ ok: true, path: "/v1/library" });
    expect(fx.main.proxy.receiptIds).toContain(out.body.receipt_id);
    expect(before - (await usdcBalance(fx, payer))).toBe(100_000n);
  });

  it("the packed tollgate-agent bin pays a gated route", async () => {
    const { stdout } = await run(
      join(consumer, "node_modules", ".bin", "tollgate-agent"),
      [
        "pay",
        `${gateUrl}/v1/cli`,
        "--json",
        "--api-origin",
        fx.main.proxy.url,
        "--rpc",
        `${AMOY}=${fx.chain.rpcUrl}`,
        "--network",
        "amoy",
        "--asset",
        "USDC",
        "--max-usd",
        "0.5",
        "--store",
        join(consumer, "cli-state.json"),
      ],
      { cwd: consumer, env: plainEnv({ TOLLGATE_AGENT_PRIVATE_KEY: hardhatPrivateKey(17) }) },
    );
    const out = JSON.parse(stdout) as {
      ok: boolean;
      payer: string;
      response: { status: number; body: unknown };
    };
    expect(out).toMatchObject({
      ok: true,
      payer: hardhatAccount(17).address,
      response: { status: 200, body: { ok: true, path: "/v1/cli" } },
    });
  });

  it("the packed tollgate-mcp bin answers initialize and tools/list over stdio", async () => {
    const transport = new StdioClientTransport({
      command: join(consumer, "node_modules", ".bin", "tollgate-mcp"),
      args: ["--stdio"],
      cwd: consumer,
      env: plainEnv({
        TOLLGATE_AGENT_PRIVATE_KEY: hardhatPrivateKey(18),
        TOLLGATE_API_ORIGINS: fx.main.proxy.url,
        TOLLGATE_RPC_URLS: `${AMOY}=${fx.chain.rpcUrl}`,
      }),
      stderr: "pipe",
    });
    const client = new Client({ name: "packed-test", version: "1" });
    await client.connect(transport);
    try {
      const mcpManifest = join(consumer, "node_modules", "@tollgate", "mcp", "package.json");
      const { version } = JSON.parse(readFileSync(mcpManifest, "utf8")) as { version: string };
      expect(client.getServerVersion()).toMatchObject({ name: "tollgate", version });
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(
        expect.arrayContaining(["pay_and_fetch", "quote", "balance", "receipts", "find_apis"]),
      );
    } finally {
      await client.close();
    }
  });

  it("a TypeScript consumer type-checks against the shipped declarations", async () => {
    const result = await typecheck;
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);
});
