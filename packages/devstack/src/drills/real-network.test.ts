/**
 * Drill (docs/deploy.md "The drill"): Tollgate on a network it did not start, run the way the runbook says.
 * A bare `hardhat node` in its own process stands in for a remote chain: no Tollgate contract on it, a block every
 * second as a live chain mines. Every key is fresh; the node's well-known account only plays the faucet.
 * - `pnpm contracts:deploy` deploys the splitters and test tokens from a key file and writes the manifest;
 * - `pnpm keys:rotate` makes the first receipt key, which signs at once;
 * - the API and the indexer start in production on that manifest and one PostgreSQL;
 * - an agent (`@tollgate/agent`) pays a merchant's gated route, is served, the settlement is indexed and its
 *   `settlement.confirmed` webhook arrives signed with the merchant's secret.
 * All chain traffic goes through a recording proxy: nothing in the path may call `hardhat_*`/`evm_*` or rely on an
 * unlocked account (`eth_sendTransaction`, `eth_accounts`). Nothing is timed; waits have a deadline against hangs.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createAgent } from "@tollgate/agent";
import { HARDHAT_MNEMONIC } from "@tollgate/contracts/deploy";
import { type HardhatNode, runDeployCli, startHardhatNode } from "@tollgate/contracts/hardhat-node";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import {
  createTestDatabase,
  findPostgresBinaries,
  type PostgresBinaries,
  startThrowawayCluster,
  type TestDatabaseHandle,
  type ThrowawayCluster,
} from "@tollgate/db/testing";
import { parseDeploymentManifest } from "@tollgate/shared/deployment";
import { freePort, spawnTsx, type TestProcess } from "@tollgate/shared/test-process";
import { verifyWebhook } from "@tollgate/webhooks/signature";
import { type Address, createWalletClient, erc20Abi, http, parseEther, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatedMerchant, startWebhookReceiver, type WebhookReceiver } from "./real-network-parts";

const REPO = resolve(import.meta.dirname, "../../../..");
const API_DIR = join(REPO, "apps/api");
const INDEXER_DIR = join(REPO, "apps/indexer");
const CHAIN_ID = 84532;
const NETWORK = "base-sepolia";
const binaries = findPostgresBinaries();
const serverUrl = process.env.TEST_DATABASE_URL;

/** Waits for `probe` to hold; the deadline only guards against a hang. */
async function until<T>(what: string, probe: () => Promise<T | undefined | false>, logs: () => string) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function fresh() {
  const key = generatePrivateKey();
  return { key, address: privateKeyToAccount(key).address };
}

describe.skipIf(!serverUrl && "missing" in binaries)(
  "drill: a deployment on a network Tollgate did not start",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-real-network-"));
    const manifestPath = join(dir, "deployments.json");
    const deployer = fresh();
    const roles = { admin: fresh(), quoteSigner: fresh(), pauser: fresh(), treasury: fresh() };
    const payer = fresh();
    const payout = fresh().address;
    const webhookKey = randomBytes(32).toString("hex");
    let node: HardhatNode;
    let rpc: RpcFaultProxy;
    let cluster: ThrowawayCluster | undefined;
    let databaseUrl: string;
    let database: TestDatabaseHandle | undefined;
    const processes: TestProcess[] = [];
    const closers: (() => Promise<void>)[] = [];
    const logs = () => processes.map((p) => p.output().slice(-4000)).join("\n---\n");

    beforeAll(async () => {
      node = await startHardhatNode(CHAIN_ID, { blockIntervalMs: 1000 });
      rpc = await startRpcFaultProxy(node.url);
      // The faucet: the node's funded account sends gas money to the deployer and the payer, nothing else.
      const faucet = createWalletClient({
        account: mnemonicToAccount(HARDHAT_MNEMONIC),
        transport: http(node.url),
        chain: {
          id: CHAIN_ID,
          name: "drill",
          nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
          rpcUrls: { default: { http: [node.url] } },
        },
      });
      for (const to of [deployer.address, payer.address])
        await faucet.sendTransaction({ to, value: parseEther("100") });
      // A migrated database of its own, on TEST_DATABASE_URL's server or else on a throwaway cluster.
      cluster = serverUrl ? undefined : await startThrowawayCluster(binaries as PostgresBinaries);
      database = await createTestDatabase("postgres", { postgresUrl: serverUrl ?? cluster?.url });
      databaseUrl = database.url ?? "";
    }, 180_000);

    afterAll(async () => {
      for (const running of processes) running.child.kill("SIGTERM");
      await Promise.all(processes.map((p) => p.exited));
      for (const close of closers) await close();
      await rpc?.close();
      await node?.stop();
      await database?.close();
      await cluster?.destroy();
      rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it("deploys from a key file, runs API and indexer in production, and a paid call is indexed and delivered", async () => {
      // 1. Deploy, as docs/deploy.md says, through the recording proxy.
      const keyFile = join(dir, "deployer.key");
      writeFileSync(keyFile, `${deployer.key}\n`, { mode: 0o600 });
      const deployed = await runDeployCli(
        [
          "--network",
          NETWORK,
          "--rpc",
          rpc.url,
          "--deployer-key-file",
          keyFile,
          "--admin",
          roles.admin.address,
          "--quote-signer",
          roles.quoteSigner.address,
          "--pauser",
          roles.pauser.address,
          "--treasury",
          roles.treasury.address,
          "--test-tokens",
          "--manifest",
          manifestPath,
        ],
        { viaPnpm: true },
      );
      expect(deployed.code, deployed.stderr).toBe(0);
      const chain = parseDeploymentManifest(JSON.parse(readFileSync(manifestPath, "utf8"))).chains[NETWORK];
      expect(chain).toMatchObject({ local: false, chainId: CHAIN_ID, rpcUrl: rpc.url });
      const usdc = chain?.tokens.USDC?.address as Address;
      // The deployer owns the test USDC: it mints the payer's balance, as a testnet faucet would.
      const owner = createWalletClient({
        account: privateKeyToAccount(deployer.key),
        transport: http(node.url),
      });
      await owner.writeContract({
        address: usdc,
        abi: [
          ...erc20Abi,
          {
            type: "function",
            name: "mint",
            stateMutability: "nonpayable",
            inputs: [
              { name: "to", type: "address" },
              { name: "amount", type: "uint256" },
            ],
            outputs: [],
          },
        ],
        functionName: "mint",
        args: [payer.address, parseUnits("10", 6)],
        chain: null,
      });

      // 2. The first receipt key, then the API and the indexer in production on the manifest.
      const apiPort = await freePort();
      const baseUrl = `http://127.0.0.1:${apiPort}`;
      const shared = {
        NODE_ENV: "production",
        DATA_DIR: join(dir, "data"),
        DATABASE_URL: databaseUrl,
        DEPLOYMENT_MANIFEST: manifestPath,
        WEBHOOK_SECRET_KEY: webhookKey,
        WEBHOOK_ALLOW_LOOPBACK: "true",
        CONFIRMATIONS_BASE_SEPOLIA: "2",
        LOG_LEVEL: "warn",
      };
      const apiEnv = {
        ...shared,
        PORT: String(apiPort),
        BASE_URL: baseUrl,
        RECEIPT_KEYS_FILE: join(dir, "receipt-keys.json"),
        QUOTE_SIGNER_PRIVATE_KEY: roles.quoteSigner.key,
        START_LOCAL_CHAINS: "false",
        SERVE_CONSOLE: "false",
      };
      const rotate = spawnTsx(API_DIR, "src/cli/rotate-receipt-key.ts", apiEnv);
      expect(await rotate.exited, rotate.output()).toBe(0);
      const api = spawnTsx(API_DIR, "src/main.ts", apiEnv);
      processes.push(api);
      await until(
        "the API to be ready",
        async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok,
        logs,
      );
      processes.push(spawnTsx(INDEXER_DIR, "src/main.ts", { ...shared, POLL_INTERVAL_MS: "500" }));

      // The deployed network is listed for agents (decision 0057: known, and in the manifest).
      const capabilities = (await (await fetch(`${baseUrl}/api/payment-capabilities`)).json()) as {
        chains: { network: string; configured: boolean; status: string }[];
      };
      expect(capabilities.chains.find((chain) => chain.network === NETWORK)).toMatchObject({
        configured: true,
      });

      // 3. A merchant with a webhook, and its gated route.
      const receiver: WebhookReceiver = await startWebhookReceiver();
      closers.push(receiver.close);
      const registered = await postJson(`${baseUrl}/v1/merchants`, {
        name: "Drill merchant",
        pay_to: { evm: payout },
        network_mode: "test",
        settlement_version: "1.4",
        settlement_chain: NETWORK,
        tiers: { standard: "0.001" },
        webhook_url: receiver.url,
      });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      const merchantId = String(registered.body.merchant_id);
      const secret = String(registered.body.secret);
      const webhook = await postJson(`${baseUrl}/v1/merchants/${merchantId}/webhook-secret`, {}, secret);
      expect(webhook.status, JSON.stringify(webhook.body)).toBe(200);
      const merchant = await startGatedMerchant({ merchantId, tier: "standard", apiBaseUrl: baseUrl });
      closers.push(merchant.close);

      // 4. The agent pays and is served.
      const agent = createAgent({
        account: privateKeyToAccount(payer.key),
        chains: { [CHAIN_ID]: { rpcUrl: rpc.url } },
        preferences: { asset: "USDC" },
        timing: { pollingIntervalMs: 250, quoteSafetyMarginMs: 30_000 },
        limits: {
          maxPerPaymentUsd: "1",
          budgetPerPeriod: { usd: "5", periodMs: 3_600_000 },
          allowedOrigins: [baseUrl],
        },
      });
      const served = await agent.fetch(`${merchant.url}/search?q=drill`);
      expect(served.status, logs()).toBe(200);
      expect(await served.json()).toMatchObject({ ok: true, query: { q: "drill" } });

      // 5. The indexer records the settlement and delivers its webhook, signed with the merchant's secret.
      const delivery = await until(
        "the settlement.confirmed webhook",
        async () => receiver.received.find((r) => r.type === "settlement.confirmed"),
        logs,
      );
      const envelope = verifyWebhook<{ merchant: string; total_amount: string; network: string }>(
        String(webhook.body.secret),
        delivery.headers,
        delivery.body,
      );
      expect(envelope.data).toMatchObject({ network: NETWORK, merchant: payout.toLowerCase() });
      expect(BigInt(envelope.data.total_amount)).toBeGreaterThan(0n);

      // 6. Nothing in the path used a development shortcut of the chain.
      const methods = new Set(rpc.calls.map((call) => call.method));
      expect(
        [...methods].filter((m) => /^(hardhat_|evm_|eth_sendTransaction$|eth_accounts$)/.test(m ?? "")),
      ).toEqual([]);
      expect(methods).toContain("eth_sendRawTransaction");
    }, 600_000);
  },
);

async function postJson(url: string, body: unknown, bearer?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
