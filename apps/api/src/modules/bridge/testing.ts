/**
 * Test and benchmark fixtures for the bridge: a scriptable upstream and a bridge router on its own express app,
 * over real local chains (apps/api/src/test/chains.ts). Not used by production code.
 */
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type DeploymentManifest, newId, splitterV12Abi } from "@tollgate/shared";
import express from "express";
import type { Address, Hash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createPaymentHeader } from "x402/client";
import { createSigner } from "x402-fetch";
import type { Clock } from "../../infra/clock";
import { createLogger } from "../../infra/logger";
import type { Agent, LocalChains } from "../../test/chains";
import { type ChainRegistry, createChainRegistry, wellKnownDevKeys } from "../chains";
import { routerConfig } from "./config";
import { type BridgeRouter, type BridgeRouterOptions, createBridgeRouter } from "./router";
import type { BridgeDeps } from "./wiring";

export type UpstreamMode = "ok" | "500" | "503" | "401" | "402" | "404" | "hang";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestUpstream {
  url: string;
  mode: UpstreamMode;
  seen: SeenRequest[];
  /** Runs before the upstream answers (tests use it to change the chain mid-call). */
  onRequest: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

export async function startTestUpstream(): Promise<TestUpstream> {
  const state: TestUpstream = { url: "", mode: "ok", seen: [], onRequest: undefined, close: async () => {} };
  const app = express();
  app.use(express.text({ type: () => true }));
  app.get("/.well-known/x402.json", (_req, res) => {
    res.json({ name: "upstream bridge" });
  });
  app.all("/{*rest}", async (req, res) => {
    await state.onRequest?.();
    state.seen.push({
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      body: typeof req.body === "string" ? req.body : "",
    });
    const mode = state.mode;
    if (mode === "hang") return;
    if (mode !== "ok") {
      res.status(Number(mode)).json({ upstream: mode });
      return;
    }
    res.setHeader("x-upstream", "yes");
    // An `upto` test names what the call used (x402/upto-meter.ts) in the query: `?metered=<atomic units>`.
    if (typeof req.query.metered === "string") res.setHeader("x-tollgate-metered-amount", req.query.metered);
    res.json({ answer: 42, path: req.originalUrl, method: req.method });
  });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

export interface TestBridge {
  url: string;
  router: BridgeRouter;
  /** The loopback server (tests watch its sockets, e.g. a client that gives up). */
  server: Server;
  close(): Promise<void>;
}

/** A bridge router mounted at `/bridge` on its own loopback server, over real local chains. */
export async function startTestBridge(
  chains: LocalChains,
  providers: unknown[],
  env: Record<string, string> = {},
  options: BridgeRouterOptions & { clock?: Clock; mount?: string; amoyRpcUrl?: string } = {},
): Promise<TestBridge> {
  const registry = createChainRegistry(chains.manifest, {
    // A test may put a recording proxy (@tollgate/contracts/rpc-fault-proxy) between the bridge and amoy.
    rpcUrls: options.amoyRpcUrl ? { amoy: options.amoyRpcUrl } : {},
    confirmations: {},
    localConfirmations: 1,
    rpcTimeoutMs: 5_000,
  });
  return startBridgeOn(registry, providers, env, options);
}

/**
 * A chain registry for bridge tests that must not reach a chain: amoy's deployment with a v1.2 splitter and no
 * ERC-3009 token (so no x402 offer and no RPC read, relayer or not) behind an RPC URL nothing listens on; or no
 * deployment at all (`deployed: false`). `local` marks it as a local development chain (relayer tests).
 */
export function offlineChainRegistry(
  options: { deployed?: boolean; local?: boolean; rpcUrl?: string } = {},
): ChainRegistry {
  const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
  const manifest: DeploymentManifest = {
    schemaVersion: 1,
    generatedAt: "2026-01-01T00:00:00.000Z",
    chains:
      options.deployed === false
        ? {}
        : {
            amoy: {
              network: "amoy",
              chainId: 80002,
              rpcUrl: options.rpcUrl ?? "http://127.0.0.1:9",
              local: options.local ?? false,
              nativeSymbol: "POL",
              deploymentBlock: 0,
              splitters: {
                "v1.2": {
                  address: address(0x12),
                  deploymentBlock: 0,
                  owner: address(1),
                  pausers: [],
                  treasury: address(2),
                  allowedTokens: [],
                },
              },
              tokens: {},
              priceFeeds: {},
              roles: {
                deployer: address(1),
                admin: address(1),
                pauser: address(1),
                treasury: address(2),
                quoteSigner: address(3),
              },
            },
          },
  };
  return createChainRegistry(manifest, {
    rpcUrls: {},
    confirmations: {},
    localConfirmations: 1,
    rpcTimeoutMs: 500,
  });
}

/** A bridge on loopback over {@link offlineChainRegistry}: refusals, routing and challenges, no chain calls. */
export function startOfflineBridge(
  providers: unknown[],
  env: Record<string, string> = {},
  options: BridgeRouterOptions & {
    clock?: Clock;
    mount?: string;
    deployed?: boolean;
    pause?: BridgeDeps["pause"];
  } = {},
): Promise<TestBridge> {
  return startBridgeOn(offlineChainRegistry({ deployed: options.deployed ?? true }), providers, env, options);
}

async function startBridgeOn(
  registry: ChainRegistry,
  providers: unknown[],
  env: Record<string, string>,
  options: BridgeRouterOptions & { clock?: Clock; mount?: string; pause?: BridgeDeps["pause"] },
): Promise<TestBridge> {
  const config = routerConfig(providers, {
    NODE_ENV: "test",
    BRIDGE_CHALLENGES_PER_MINUTE: "100000",
    ...env,
  });
  const router = createBridgeRouter(
    {
      chains: registry,
      log: createLogger("silent"),
      clock: options.clock ?? { now: () => new Date() },
      pause: options.pause,
    },
    config,
    options,
  );
  await router.bridge.ready();
  const app = express();
  app.disable("x-powered-by");
  app.use((req, _res, next) => {
    req.requestId = newId("request");
    next();
  });
  const mount = options.mount ?? "/bridge";
  app.use(mount, router);
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${mount}`,
    router,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await router.bridge.close();
    },
  };
}

/** A fresh random EVM address (clean balances for assertions). */
export function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** Pays a challenge's `pay_matic` block with viem exactly as stated; returns the mined transaction hash. */
export async function payMaticWith(agent: Agent, payMatic: Record<string, unknown>): Promise<Hash> {
  const hash = await agent.wallet.writeContract({
    account: agent.account,
    chain: null,
    address: payMatic.splitter as Address,
    abi: splitterV12Abi,
    functionName: "payMatic",
    args: [payMatic.merchant_wallet as Address, payMatic.ip_creator as Address, String(payMatic.order_id)],
    value: BigInt(String(payMatic.total_wei)),
  });
  await agent.client.waitForTransactionReceipt({ hash });
  return hash;
}

/** An `X-PAYMENT` header made by the real x402 1.2 client library for a v1 `accepts` entry. */
export async function x402V1Header(agent: Agent, accept: unknown): Promise<string> {
  const key = wellKnownDevKeys().get(agent.address.toLowerCase());
  if (!key) throw new Error(`no well-known key for ${agent.address}`);
  const signer = await createSigner("polygon-amoy", key);
  // x402's Signer type is a viem client union that its own createSigner satisfies at runtime.
  return createPaymentHeader(signer as never, 1, accept as never);
}

/**
 * A junk `/facilitator/settle` body: a fresh, unfunded key signs a zero-value authorization to the
 * provider of a v1 `accepts` entry, whose `maxAmountRequired` says 0. The bridge must refuse it before any chain call.
 */
export async function junkSettleBody(accept: Record<string, unknown>): Promise<Record<string, unknown>> {
  return settleBodyFromFreshKey({ ...accept, maxAmountRequired: "0" });
}

/**
 * The dearest junk `/facilitator/settle` body: a fresh, unfunded key signs the exact price of an issued,
 * unpaid challenge. Only signature recovery and the chain's balance read can refuse it (`insufficient_funds`).
 */
export function unfundedSettleBody(accept: Record<string, unknown>): Promise<Record<string, unknown>> {
  return settleBodyFromFreshKey(accept);
}

async function settleBodyFromFreshKey(
  requirements: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const signer = await createSigner("polygon-amoy", generatePrivateKey());
  // x402's Signer type is a viem client union that its own createSigner satisfies at runtime.
  const header = await createPaymentHeader(signer as never, 1, requirements as never);
  return {
    x402Version: 1,
    paymentPayload: JSON.parse(Buffer.from(header, "base64").toString("utf8")),
    paymentRequirements: requirements,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: test assertions walk decoded JSON freely.
export type Json = Record<string, any>;

/** `response.json()` typed for assertions. */
export async function readJson(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

export { stockBatchPayer, stockExactPayer } from "./x402/stock-payers";
export { decodeHeader, encodeHeader } from "./x402/wire";
