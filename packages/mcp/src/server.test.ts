/**
 * The MCP server end to end (docs/mcp.md): the SDK's own Client over stdio (spawning the bin) and over
 * Streamable HTTP, against one real `pnpm start` (local chains, API, example merchant, local Solana RPC).
 * Covered: a paid fetch through the AIFP-1 gate over each transport and through the bridge demo's x402 v2 402
 * (stdio), receipts and their quota, balance, quote, find_apis, identity_fetch, operator reads and actions, per-call and per-session limits refusing with no
 * transaction sent (chain nonce and token balance unchanged), a bad key file and a bad environment.
 */
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { agreementHashHex, fileLedger, LOCAL_LEDGER_FILE, reserveSeatFor } from "@tollgate/api";
import { formatUsd, parseUsd } from "@tollgate/shared";
import bs58 from "bs58";
import { type Address, createPublicClient, erc20Abi, http, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config";
import { type HttpServer, startHttpServer } from "./http";
import { createRuntime } from "./runtime";
import { operatorToken, startStack, type TestStack } from "./test-stack";

const BIN = join(import.meta.dirname, "..", "bin", "tollgate-mcp.js");
const HTTP_TOKEN = "test-http-token-0123456789abcdef";

/** The JSON a tool answered, and whether it was a tool error. */
function resultOf(result: unknown): { isError: boolean; json: Record<string, unknown> } {
  const { content, isError } = result as CallToolResult;
  const first = content[0];
  if (first?.type !== "text") throw new Error(`unexpected content ${JSON.stringify(content)}`);
  return { isError: Boolean(isError), json: JSON.parse(first.text) as Record<string, unknown> };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return resultOf(await client.callTool({ name, arguments: args }));
}

describe("tollgate-mcp against pnpm start", () => {
  let stack: TestStack;
  let work: string;
  let adminToken: string;
  const amoy = () => {
    const chain = stack.manifest.chains.amoy;
    if (!chain) throw new Error("no amoy chain");
    return chain;
  };
  const chainClient = () => createPublicClient({ transport: http(amoy().rpcUrl) });
  const usdcOf = (address: Address) =>
    chainClient().readContract({
      address: amoy().tokens.USDC?.address as Address,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [address],
    });
  const nonceOf = (address: Address) => chainClient().getTransactionCount({ address });
  /** A funded local account (#0-#19 hold USDC on the local chains; #9 is the demo's, #4 the relayer). */
  const localAccount = (index: number) => {
    const mnemonic = stack.manifest.dev?.mnemonic;
    if (!mnemonic) throw new Error("no dev mnemonic");
    const account = mnemonicToAccount(mnemonic, { addressIndex: index });
    return { address: account.address, key: toHex(account.getHdKey().privateKey ?? new Uint8Array()) };
  };
  const agentEnv = (keyFile: string, store: string) => ({
    TOLLGATE_AGENT_KEY_FILE: keyFile,
    TOLLGATE_API_ORIGINS: stack.apiUrl,
    TOLLGATE_RPC_URLS: stack.rpcUrls,
    TOLLGATE_AGENT_STORE: store,
    TOLLGATE_AGENT_NETWORK: "amoy",
    TOLLGATE_AGENT_ASSET: "USDC",
    TOLLGATE_DEPLOYMENT_MANIFEST: stack.manifestPath,
  });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "tollgate-mcp-"));
    stack = await startStack();
    adminToken = await operatorToken(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("over stdio: pays through the AIFP-1 gate, then reuses the receipt; quote, balance, receipts, identity, operator reads", async () => {
    const payer = localAccount(11);
    writeFileSync(join(work, "stdio.key"), `${payer.key}\n`, { mode: 0o600 });
    // A Solana keypair file (seed + public key) with a seat reserved the way `pnpm seat:reserve` does it.
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const seed = Buffer.from(privateKey.export({ format: "jwk" }).d ?? "", "base64url");
    const raw = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
    writeFileSync(join(work, "solana.json"), JSON.stringify([...seed, ...raw]));
    reserveSeatFor(
      fileLedger(join(stack.dataDir, LOCAL_LEDGER_FILE)),
      bs58.encode(raw),
      "9UQ5xLJWXWYovruVQD9jdP6Qj5WS93hYVMtprSQWXzhi",
      Buffer.from(agreementHashHex(), "hex"),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--stdio"],
      env: {
        PATH: process.env.PATH ?? "",
        ...agentEnv(join(work, "stdio.key"), join(work, "stdio-store.json")),
        TOLLGATE_SOLANA_KEY_FILE: join(work, "solana.json"),
        TOLLGATE_ADMIN_TOKEN: adminToken,
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    try {
      const listed = (await client.listTools()).tools;
      // pay_and_fetch offers every rail the agent pays, sessions included.
      const payTool = listed.find((tool) => tool.name === "pay_and_fetch");
      const railSchema = (payTool?.inputSchema.properties as { rail?: { enum?: string[] } } | undefined)
        ?.rail;
      expect(railSchema?.enum).toEqual([
        "aifp1",
        "x402-exact",
        "pay-matic",
        "x402-upto",
        "x402-batch-settlement",
      ]);
      const tools = listed.map((tool) => tool.name).sort();
      expect(tools).toEqual(
        [
          "balance",
          "find_apis",
          "identity_fetch",
          "operator_failed_payments",
          "operator_overview",
          "operator_search",
          "operator_webhooks",
          "pay_and_fetch",
          "quote",
          "receipts",
        ].sort(),
      );
      const url = `${stack.exampleUrl}/v1/search?q=mcp`;

      const quote = await call(client, "quote", { url });
      expect(quote.isError).toBe(false);
      expect(quote.json).toMatchObject({
        paid: true,
        protocol: "AIFP-1",
        merchant_id: stack.merchantId,
        resource: "/v1/search",
        network: "amoy",
        asset: "USDC",
        within_limits: true,
      });

      const nonceBefore = await nonceOf(payer.address);
      const usdcBefore = await usdcOf(payer.address);
      const paid = await call(client, "pay_and_fetch", { url });
      expect(paid.isError, JSON.stringify(paid.json)).toBe(false);
      expect(paid.json.status).toBe(200);
      expect((paid.json.transactions as string[]).length).toBeGreaterThan(0);
      expect(paid.json.spent_usd).not.toBe("0");
      expect(typeof paid.json.quota_remaining).toBe("number");
      expect(await nonceOf(payer.address)).toBeGreaterThan(nonceBefore);
      const usdcAfter = await usdcOf(payer.address);
      expect(usdcAfter).toBeLessThan(usdcBefore);

      // The held receipt serves the next call: no transaction, quota down by one.
      const nonceAfterPay = await nonceOf(payer.address);
      const again = await call(client, "pay_and_fetch", { url });
      expect(again.json).toMatchObject({ status: 200, transactions: [], spent_usd: "0" });
      expect(again.json.quota_remaining).toBe((paid.json.quota_remaining as number) - 1);
      expect(await nonceOf(payer.address)).toBe(nonceAfterPay);

      // Quoting the bridge demo's x402 v2 402 names what would be paid and moves nothing.
      const x402Quote = await call(client, "quote", { url: `${stack.apiUrl}/bridge/demo/v1/echo?q=quote` });
      expect(x402Quote.isError, JSON.stringify(x402Quote.json)).toBe(false);
      expect(x402Quote.json).toMatchObject({
        paid: true,
        protocol: "x402 v2",
        amount_usd: "0.1",
        amount_atomic: "100000",
        asset: "USDC",
        network: "amoy",
        chain_id: 80002,
        pay_to: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        within_limits: true,
      });
      expect(await usdcOf(payer.address)).toBe(usdcAfter);

      // The bridge demo's x402 v2 402 is paid with a signed authorization (the relayer sends the transaction, so
      // the payer's nonce stays): exactly its price in USDC moves, the settlement transaction is reported.
      const bridge = await call(client, "pay_and_fetch", {
        url: `${stack.apiUrl}/bridge/demo/v1/echo?q=mcp`,
        rail: "x402-exact",
        expected_calls: 2,
      });
      expect(bridge.isError, JSON.stringify(bridge.json)).toBe(false);
      expect(bridge.json).toMatchObject({ status: 200, spent_usd: "0.1" });
      expect(bridge.json.transactions).toEqual([expect.stringMatching(/^0x[0-9a-f]{64}$/)]);
      expect(await usdcOf(payer.address)).toBe(usdcAfter - 100_000n);
      expect(await nonceOf(payer.address)).toBe(nonceAfterPay);

      const receipts = await call(client, "receipts");
      expect(receipts.json.receipts).toEqual([
        expect.objectContaining({
          api: stack.apiUrl,
          merchant_id: stack.merchantId,
          resource: "/v1/search",
          quota_remaining: again.json.quota_remaining,
          expired: false,
        }),
      ]);

      const balance = await call(client, "balance");
      expect(balance.json.address).toBe(payer.address);
      const [chain] = balance.json.chains as {
        chain_id: number;
        tokens: { symbol: string; atomic: string }[];
      }[];
      expect(chain?.chain_id).toBe(80002);
      expect(chain?.tokens.find((token) => token.symbol === "USDC")?.atomic).toBe(
        (usdcAfter - 100_000n).toString(),
      );
      expect(balance.json.limits).toMatchObject({
        period_spent_usd: formatUsd(parseUsd(paid.json.spent_usd as string) + parseUsd("0.1")),
      });

      const apis = await call(client, "find_apis", { q: "search" });
      expect(apis.isError).toBe(false);
      expect(apis.json).toMatchObject({ api: stack.apiUrl, listings: expect.any(Array) });
      expect(typeof apis.json.count).toBe("number");

      const identity = await call(client, "identity_fetch", { url: `${stack.apiUrl}/api/live-stats` });
      expect(identity.json).toMatchObject({
        status: 200,
        answered_challenge: true,
        pubkey: bs58.encode(raw),
      });
      const foreign = await call(client, "identity_fetch", { url: `${stack.exampleUrl}/v1/search` });
      expect(foreign).toMatchObject({ isError: true, json: { error: { code: "origin_not_allowed" } } });

      const overview = await call(client, "operator_overview");
      expect(overview.isError, JSON.stringify(overview.json)).toBe(false);
      expect(overview.json).toHaveProperty("counts");
      const search = await call(client, "operator_search", { q: stack.merchantId });
      expect(search.isError).toBe(false);
      expect(JSON.stringify(search.json)).toContain(stack.merchantId);
      const webhooks = await call(client, "operator_webhooks", {});
      expect(webhooks.isError, JSON.stringify(webhooks.json)).toBe(false);
      const failed = await call(client, "operator_failed_payments", {});
      expect(failed.isError, JSON.stringify(failed.json)).toBe(false);
      // Keys never come from arguments: an unknown argument is not a way in.
      const badArgs = await client.callTool({ name: "pay_and_fetch", arguments: { url: 42 } });
      expect(badArgs.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("over Streamable HTTP: bearer required; per-call and session limits refuse with no transaction; pays within them; actions", async () => {
    const payer = localAccount(12);
    writeFileSync(join(work, "http.key"), payer.key, { mode: 0o600 });
    const searchUrl = `${stack.exampleUrl}/v1/search?q=http`;
    const env = {
      ...agentEnv(join(work, "http.key"), join(work, "http-store.json")),
      TOLLGATE_ADMIN_TOKEN: adminToken,
      TOLLGATE_MCP_HTTP_TOKEN: HTTP_TOKEN,
    };
    // The session budget is exactly one search purchase, so any second purchase is over it.
    const probe = loadConfig(["--http"], env, work);
    if (!probe) throw new Error("no config");
    const probeAgent = createRuntime(probe).agent;
    if (!probeAgent.ok) throw new Error(probeAgent.reason);
    const searchPrice = (await probeAgent.value.quote(searchUrl)).quote?.amount ?? "";
    expect(searchPrice).toMatch(/^\d/);
    const config = loadConfig(
      ["--http", "--port", "0", "--allow-actions"],
      { ...env, TOLLGATE_MCP_SESSION_BUDGET_USD: searchPrice },
      work,
    );
    if (!config) throw new Error("no config");
    const server: HttpServer = await startHttpServer(createRuntime(config), {
      host: "127.0.0.1",
      port: 0,
      token: HTTP_TOKEN,
    });
    const client = new Client({ name: "test", version: "1" });
    try {
      const anonymous = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
      });
      expect(anonymous.status).toBe(401);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${HTTP_TOKEN}` } },
        }),
      );
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(
        expect.arrayContaining(["operator_pause", "operator_unpause", "operator_webhook_replay"]),
      );

      const nonce0 = await nonceOf(payer.address);
      const usdc0 = await usdcOf(payer.address);
      const capped = await call(client, "pay_and_fetch", { url: searchUrl, max_usd: "0.000001" });
      expect(capped).toMatchObject({
        isError: true,
        json: { error: { code: "spend_limit_exceeded", limit: "per_call", money_moved: false } },
      });
      expect(await nonceOf(payer.address)).toBe(nonce0);
      expect(await usdcOf(payer.address)).toBe(usdc0);

      const paid = await call(client, "pay_and_fetch", { url: searchUrl });
      expect(paid.isError, JSON.stringify(paid.json)).toBe(false);
      expect(paid.json).toMatchObject({ status: 200, spent_usd: searchPrice, session_left_usd: "0" });
      expect(await nonceOf(payer.address)).toBeGreaterThan(nonce0);

      // The premium report costs more than the session has left: refused before anything is signed.
      const nonce1 = await nonceOf(payer.address);
      const usdc1 = await usdcOf(payer.address);
      const premium = await call(client, "pay_and_fetch", { url: `${stack.exampleUrl}/v1/premium-report` });
      expect(premium).toMatchObject({
        isError: true,
        json: { error: { code: "spend_limit_exceeded", limit: "per_session", transactions: [] } },
      });
      expect(await nonceOf(payer.address)).toBe(nonce1);
      expect(await usdcOf(payer.address)).toBe(usdc1);
      // The bridge's x402 402 too: refused on the session limit before any authorization is signed.
      const bridge = await call(client, "pay_and_fetch", {
        url: `${stack.apiUrl}/bridge/demo/v1/echo?q=over`,
      });
      expect(bridge).toMatchObject({
        isError: true,
        json: { error: { code: "spend_limit_exceeded", limit: "per_session", transactions: [] } },
      });
      expect(await usdcOf(payer.address)).toBe(usdc1);

      // Operator actions: pause amoy, a quote there is refused, unpause.
      const paused = await call(client, "operator_pause", { scope: "amoy", reason: "mcp test" });
      expect(paused.isError, JSON.stringify(paused.json)).toBe(false);
      const refused = await call(client, "quote", { url: `${stack.exampleUrl}/v1/search?q=paused` });
      expect(refused).toMatchObject({ isError: true, json: { error: { reason: "quote_failed" } } });
      const unpaused = await call(client, "operator_unpause", { scope: "amoy", reason: "mcp test done" });
      expect(unpaused.isError, JSON.stringify(unpaused.json)).toBe(false);
      const replay = await call(client, "operator_webhook_replay", { event_id: "evt_11111111111111111111" });
      expect(replay).toMatchObject({ isError: true, json: { error: { status: 404 } } });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a bad key file is a clear tool error and the server keeps serving; a bad environment exits 2 with a message", async () => {
    writeFileSync(join(work, "bad.key"), "not a key\n");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--stdio"],
      env: { PATH: process.env.PATH ?? "", ...agentEnv(join(work, "bad.key"), join(work, "bad-store.json")) },
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    try {
      const paid = await call(client, "pay_and_fetch", { url: `${stack.exampleUrl}/v1/search?q=x` });
      expect(paid.isError).toBe(true);
      expect(paid.json.error).toMatchObject({ code: "agent_unavailable" });
      expect(String((paid.json.error as { message: string }).message)).toContain(
        `key file ${join(work, "bad.key")}: must be a 0x-prefixed 32-byte hex private key`,
      );
      const apis = await call(client, "find_apis", {});
      expect(apis.isError).toBe(false);
    } finally {
      await client.close();
    }
    const bad = spawnSync(process.execPath, [BIN, "--stdio"], {
      env: { PATH: process.env.PATH, TOLLGATE_MCP_SESSION_BUDGET_USD: "lots" },
      encoding: "utf8",
      input: "",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("TOLLGATE_MCP_SESSION_BUDGET_USD: must be a USD decimal string");
    expect(bad.stderr).not.toContain("    at ");
  });
});
