/**
 * End-to-end fixture for the agent tests (not shipped): real local amoy chain, the real API behind a
 * forwarding proxy (the proxy's URL is the API's BASE_URL, so receipt issuer, quote_url and gate agree; it
 * also counts requests and can tamper with quote responses), merchants registered through the API, and a real
 * Express server gated by `@tollgate/gate`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi, testDatabaseKinds } from "@tollgate/api/testing";
import { localChainsForTest } from "@tollgate/contracts/chain-pool";
import { HARDHAT_MNEMONIC } from "@tollgate/contracts/deploy";
import type { LocalChain, LocalChains } from "@tollgate/contracts/local-chains";
import { gate } from "@tollgate/gate";
import express from "express";
import { type Address, createPublicClient, erc20Abi, type Hex, http, type PublicClient, toHex } from "viem";
import { type HDAccount, mnemonicToAccount } from "viem/accounts";

/** A forwarding proxy in front of the API: counts requests, can rewrite JSON responses of one path. */
export interface ApiProxy {
  url: string;
  target: string;
  counts: Map<string, number>;
  /** Idempotency keys seen on POST /v1/pay, in order. */
  payKeys: string[];
  /** Receipt ids of 200 answers to POST /v1/pay. */
  receiptIds: string[];
  rewrite?: ((path: string, json: Record<string, unknown>) => Promise<Record<string, unknown>>) | undefined;
  /** Answers instead of the API when it returns a response (fault injection). */
  fault?:
    | ((label: string) => { status: number; body: unknown; headers?: Record<string, string> } | undefined)
    | undefined;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startApiProxy(): Promise<ApiProxy> {
  const proxy: ApiProxy = {
    url: "",
    target: "",
    counts: new Map(),
    payKeys: [],
    receiptIds: [],
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const label = `${req.method} ${path}`;
      proxy.counts.set(label, (proxy.counts.get(label) ?? 0) + 1);
      if (label === "POST /v1/pay") proxy.payKeys.push(String(req.headers["idempotency-key"]));
      const fault = proxy.fault?.(label);
      if (fault) {
        res
          .writeHead(fault.status, { "content-type": "application/problem+json", ...fault.headers })
          .end(JSON.stringify(fault.body));
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
          headers.set(name, value);
      }
      const upstream = await fetch(`${proxy.target}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      let text = await upstream.text();
      if (upstream.status === 200 && text.startsWith("{")) {
        const json = JSON.parse(text) as Record<string, unknown>;
        if (label === "POST /v1/pay" && typeof json.receipt_id === "string")
          proxy.receiptIds.push(json.receipt_id);
        if (proxy.rewrite) text = JSON.stringify(await proxy.rewrite(path, json));
      }
      const out: Record<string, string> = {};
      for (const name of ["content-type", "retry-after", "cache-control", "idempotent-replayed"]) {
        const value = upstream.headers.get(name);
        if (value !== null) out[name] = value;
      }
      res.writeHead(upstream.status, out).end(text);
    })().catch((error: unknown) => {
      res.writeHead(502).end(String(error));
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** An API instance reachable through its own proxy (BASE_URL = proxy URL). */
export interface ProxiedApi {
  api: TestApi;
  proxy: ApiProxy;
  close(): Promise<void>;
}

export async function startProxiedApi(
  dataDir: string,
  env: Record<string, string>,
  options: { db?: TestApi["deps"]["db"] } = {},
): Promise<ProxiedApi> {
  const proxy = await startApiProxy();
  const kind = testDatabaseKinds()[0] ?? "pglite";
  const api = await startTestApi(
    kind,
    { DATA_DIR: dataDir, BASE_URL: proxy.url, RATE_LIMIT_QUOTES_PER_MINUTE: "100000", ...env },
    options.db ? { db: options.db } : {},
  );
  proxy.target = api.baseUrl;
  return {
    api,
    proxy,
    async close() {
      await api.close();
      await proxy.close();
    },
  };
}

export async function registerMerchant(
  api: TestApi,
  version: "1.2" | "1.4",
  tiers: Record<string, string>,
): Promise<string> {
  const created = await api.call("POST", "/v1/merchants", {
    body: {
      name: `Agent test ${version}`,
      pay_to: { evm: "0x52908400098527886E0F7030069857D2E4169EE7" },
      network_mode: "test",
      settlement_version: version,
      tiers,
    },
  });
  if (created.status !== 201 && created.status !== 200)
    throw new Error(`merchant registration: ${created.text}`);
  return String(created.json.merchant_id);
}

export interface GatedRoute {
  path: string;
  merchantId: string;
  tier: string;
  /** Tollgate API base (issuer) this route's gate trusts. */
  apiBaseUrl: string;
  method?: "get" | "post";
}

/** A real merchant server: each route behind `gate()`, answering JSON with what it got. */
export async function startMerchant(
  routes: GatedRoute[],
): Promise<{ url: string; hits: Map<string, number>; close(): Promise<void> }> {
  const app = express();
  app.use(express.json());
  const hits = new Map<string, number>();
  for (const route of routes) {
    app[route.method ?? "get"](
      route.path,
      gate({ merchantId: route.merchantId, tier: route.tier, apiBaseUrl: route.apiBaseUrl }),
      (req, res) => {
        hits.set(route.path, (hits.get(route.path) ?? 0) + 1);
        res.json({
          ok: true,
          path: route.path,
          query: req.query,
          body: req.body ?? null,
          receipt_id: req.aifp?.receiptId,
        });
      },
    );
  }
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Hardhat account `index` (funded with POL and USDC by the local chains). */
export function hardhatAccount(index: number): HDAccount {
  return mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: index });
}

export function hardhatPrivateKey(index: number): Hex {
  const key = hardhatAccount(index).getHdKey().privateKey;
  if (!key) throw new Error("no private key");
  return toHex(key);
}

export interface Fixture {
  dataDir: string;
  chains: LocalChains;
  chain: LocalChain;
  client: PublicClient;
  usdc: Address;
  main: ProxiedApi;
  close(): Promise<void>;
}

export async function startFixture(prefix: string): Promise<Fixture> {
  const dataDir = mkdtempSync(join(tmpdir(), `tollgate-agent-${prefix}-`));
  // Test setup may read the environment: the chain pool is the test runner's (docs/testing.md "Chains").
  const chains = await localChainsForTest(process.env, { dataDir, networks: ["amoy"] });
  const chain = chains.chains[0];
  if (!chain) throw new Error("no amoy chain");
  const main = await startProxiedApi(dataDir, { CONFIRMATIONS_AMOY: "1" });
  const usdc = chain.deployment.tokens.find((token) => token.spec.symbol === "USDC")?.address;
  if (!usdc) throw new Error("no USDC on amoy");
  return {
    dataDir,
    chains,
    chain,
    client: createPublicClient({ transport: http(chain.rpcUrl) }) as PublicClient,
    usdc: usdc as Address,
    main,
    async close() {
      await main.close();
      await chains.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function usdcBalance(fixture: Fixture, owner: Address): Promise<bigint> {
  return fixture.client.readContract({
    address: fixture.usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [owner],
  });
}

/**
 * Mines `blocks` empty blocks, one `evm_mine` each: a pooled chain has been reverted, and after `evm_revert` Hardhat's
 * batched `hardhat_mine` can break the parent-hash chain (Hardhat RPC, outside viem's typed schema: hence the cast).
 */
export async function mine(chain: LocalChain, blocks = 1): Promise<void> {
  for (let k = 0; k < blocks; k++) await chain.provider.request({ method: "evm_mine" } as never);
}
