/**
 * Local chains (DESIGN §3, §11; docs/local-chains.md): one in-process Hardhat network per Tollgate
 * network, each with that network's chain id, served over HTTP + WebSocket on a loopback port, with
 * the contracts deployed and Hardhat's well-known accounts funded. Writes the deployment manifest
 * to `$DATA_DIR/deployments.json`. Usable as a library (`startLocalChains`) and as a CLI
 * (scripts/chains.ts).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import {
  SPLITTER_V14_EIP712_NAME,
  SPLITTER_V14_EIP712_VERSION,
  SPLITTER_V14_ROUTES,
} from "@tollgate/shared/contracts";
import {
  type ChainDeployment,
  DEPLOYMENT_MANIFEST_FILE,
  DEPLOYMENT_MANIFEST_SCHEMA_VERSION,
  type DeploymentManifest,
  parseDeploymentManifest,
} from "@tollgate/shared/deployment";
import { EVM_NETWORKS, type EvmNetworkName, NETWORKS } from "@tollgate/shared/networks";
import type { Address, EIP1193Provider } from "viem";
import {
  type Deployment,
  deployTollgate,
  HARDHAT_ACCOUNTS,
  HARDHAT_MNEMONIC,
  LOCAL_ROLES,
  type TokenSpec,
} from "./deploy";
import {
  CONTRACTS_ROOT,
  compileContracts,
  createInProcessNetwork,
  createJsonRpcHandler,
  loadHardhat,
  loadWsServer,
} from "./hardhat";

export const DEFAULT_CHAINS_BASE_PORT = 8545;
/** Port offset of each network from the base port. */
export const CHAIN_PORT_OFFSETS: Readonly<Record<EvmNetworkName, number>> = { polygon: 0, base: 1, amoy: 2 };
/** Test tokens minted to every well-known account: 1,000,000 USDC / USDT (6 decimals). */
export const FUND_TOKEN_AMOUNT = 1_000_000n * 10n ** 6n;
/** Initial POL/USD answer of the price feed: 0.25 USD, 8 decimals. */
export const INITIAL_POL_USD = 25_000_000n;

/** Per-network test deployment: tokens mimic the real USDC/USDT of that network (x402-wire §e.7). */
const NETWORK_SETUP: Readonly<
  Record<EvmNetworkName, { tokens: TokenSpec[]; priceFeed: boolean; aifp2: boolean }>
> = {
  polygon: {
    tokens: [
      { symbol: "USDC", name: "USD Coin", eip712: { name: "USD Coin", version: "2" } },
      { symbol: "USDT", name: "Tether USD" },
    ],
    priceFeed: true,
    aifp2: false,
  },
  base: {
    tokens: [{ symbol: "USDC", name: "USD Coin", eip712: { name: "USD Coin", version: "2" } }],
    priceFeed: false,
    aifp2: false,
  },
  amoy: {
    tokens: [
      { symbol: "USDC", name: "USDC", eip712: { name: "USDC", version: "2" } },
      { symbol: "USDT", name: "Tether USD" },
    ],
    priceFeed: true,
    aifp2: true,
  },
};

export interface LocalChainsOptions {
  /** Where deployments.json is written. Default: $DATA_DIR, else `.tollgate/` at the repo root. */
  dataDir?: string;
  /** polygon = basePort, base = basePort + 1, amoy = basePort + 2. 0 = pick free ports. Default 8545. */
  basePort?: number;
  /** Loopback only (the well-known keys must never face a network). Default 127.0.0.1. */
  host?: string;
  networks?: readonly EvmNetworkName[];
  /** Address granted SIGNER_ROLE on v1.4. Default: Hardhat account #3. */
  quoteSigner?: Address;
  /** Write the manifest file. Default true. */
  writeManifest?: boolean;
  /**
   * `always`: run Hardhat's incremental compile first (the CLI does). `if-missing` (default): compile
   * only when an artifact is missing, so parallel test workers never race on Hardhat's cache files
   * (the test runner compiles once up front). `never`: fail if artifacts are missing.
   */
  compile?: "always" | "if-missing" | "never";
  /** Progress lines; default silent. */
  log?: (line: string) => void;
}

export interface LocalChain {
  network: EvmNetworkName;
  chainId: number;
  rpcUrl: string;
  wsUrl: string;
  /** The same chain in-process (no HTTP), for fast tests. */
  provider: EIP1193Provider;
  deployment: Deployment;
}

export interface LocalChains {
  manifest: DeploymentManifest;
  /** Absent when writeManifest is false. */
  manifestPath?: string;
  chains: LocalChain[];
  /** Milliseconds from the call to ready. */
  startupMs: number;
  /** Closes every server; idempotent. */
  stop(): Promise<void>;
}

export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
  constructor(
    readonly host: string,
    readonly port: number,
    readonly network: string,
  ) {
    super(
      `port ${port} on ${host} (local ${network} chain) is already in use; stop the other process or choose another base port (--base-port / CHAINS_BASE_PORT)`,
    );
  }
}

export function defaultDataDir(): string {
  const env = process.env.DATA_DIR;
  return env && env.length > 0 ? path.resolve(env) : path.resolve(CONTRACTS_ROOT, "..", ".tollgate");
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

interface RpcServer {
  url: string;
  wsUrl: string;
  close(): Promise<void>;
}

async function listen(
  provider: EIP1193Provider,
  host: string,
  port: number,
  network: string,
): Promise<RpcServer & { port: number }> {
  const handler = createJsonRpcHandler(provider);
  const server = http.createServer();
  server.on("request", handler.handleHttp);
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      reject(
        err.code === "EADDRINUSE" || err.code === "EACCES" ? new PortInUseError(host, port, network) : err,
      );
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
  const WsServer = loadWsServer();
  const wss = new WsServer({ server });
  wss.on("connection", handler.handleWs);
  const actual = (server.address() as AddressInfo).port;
  const h = host.includes(":") ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    port: actual,
    url: `http://${h}:${actual}`,
    wsUrl: `ws://${h}:${actual}`,
    close() {
      closed ??= (async () => {
        for (const client of wss.clients) client.terminate();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closed;
    },
  };
}

const DEPLOYED_CONTRACTS = ["SplitterV12", "SplitterV14", "TestUSDC", "TestUSDT", "MockPriceFeed"] as const;

function artifactsPresent(): boolean {
  return DEPLOYED_CONTRACTS.every((name) =>
    existsSync(path.join(CONTRACTS_ROOT, "artifacts/contracts", `${name}.sol`, `${name}.json`)),
  );
}

/** Starts the local chains, deploys, funds and writes the manifest. */
export async function startLocalChains(opts: LocalChainsOptions = {}): Promise<LocalChains> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const host = opts.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host))
    throw new Error(`local chains use well-known keys and listen on loopback only, not ${host}`);
  const basePort = opts.basePort ?? DEFAULT_CHAINS_BASE_PORT;
  if (!Number.isInteger(basePort) || basePort < 0 || basePort > 65_533)
    throw new Error(`invalid base port ${basePort}`);
  const networks = opts.networks ?? EVM_NETWORKS;
  const quoteSigner = opts.quoteSigner ?? LOCAL_ROLES.quoteSigner;

  const hre = loadHardhat();
  const compile = opts.compile ?? "if-missing";
  if (compile === "always" || (compile === "if-missing" && !artifactsPresent())) {
    await compileContracts(hre);
    log(`compiled contracts (${Math.round(performance.now() - started)} ms)`);
  } else if (!artifactsPresent()) {
    throw new Error("contract artifacts missing: run `pnpm --filter @tollgate/contracts compile`");
  }

  const servers: RpcServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.close()));
  };
  try {
    // Bind every port before deploying anything, so a busy port fails fast and writes nothing.
    const providers = await Promise.all(
      networks.map((network) => createInProcessNetwork({ chainId: NETWORKS[network].chainId }, hre)),
    );
    const bound: (RpcServer & { port: number })[] = [];
    for (const [k, network] of networks.entries()) {
      const port = basePort === 0 ? 0 : basePort + CHAIN_PORT_OFFSETS[network];
      const server = await listen(providers[k]!, host, port, network);
      servers.push(server);
      bound.push(server);
    }
    log(`chains listening (${Math.round(performance.now() - started)} ms)`);

    const deployments = await Promise.all(
      networks.map((network, k) =>
        deployTollgate(providers[k]!, {
          chainId: NETWORKS[network].chainId,
          tokens: NETWORK_SETUP[network].tokens,
          ...(NETWORK_SETUP[network].priceFeed ? { polUsdPrice: INITIAL_POL_USD } : {}),
          enableAifp2: NETWORK_SETUP[network].aifp2,
          quoteSigner,
          fund: { accounts: HARDHAT_ACCOUNTS, amount: FUND_TOKEN_AMOUNT },
        }),
      ),
    );
    log(`deployed (${Math.round(performance.now() - started)} ms)`);

    const chains: LocalChain[] = networks.map((network, k) => ({
      network,
      chainId: NETWORKS[network].chainId,
      rpcUrl: bound[k]!.url,
      wsUrl: bound[k]!.wsUrl,
      provider: providers[k]!,
      deployment: deployments[k]!,
    }));
    const manifest = buildManifest(chains);
    let manifestPath: string | undefined;
    if (opts.writeManifest ?? true) {
      const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : defaultDataDir();
      manifestPath = writeManifestFile(dataDir, manifest);
    }
    return {
      manifest,
      ...(manifestPath ? { manifestPath } : {}),
      chains,
      startupMs: Math.round(performance.now() - started),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Writes atomically (temp file + rename) so readers never see half a manifest; re-runs overwrite it. */
export function writeManifestFile(dataDir: string, manifest: DeploymentManifest): string {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, DEPLOYMENT_MANIFEST_FILE);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

export function buildManifest(chains: readonly LocalChain[]): DeploymentManifest {
  const out: DeploymentManifest["chains"] = {};
  for (const chain of chains) {
    const d = chain.deployment;
    const symbols = d.tokens.map((t) => t.spec.symbol);
    const entry: ChainDeployment = {
      network: chain.network,
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      local: true,
      nativeSymbol: NETWORKS[chain.network].nativeSymbol,
      deploymentBlock: d.firstBlock,
      splitters: {
        "v1.2": {
          address: d.splitterV12.address,
          deploymentBlock: d.splitterV12.deploymentBlock,
          owner: d.deployer,
          pausers: [d.pauser],
          treasury: d.treasury,
          allowedTokens: symbols,
        },
        "v1.4": {
          address: d.splitterV14.address,
          deploymentBlock: d.splitterV14.deploymentBlock,
          eip712: { name: SPLITTER_V14_EIP712_NAME, version: SPLITTER_V14_EIP712_VERSION },
          admin: d.deployer,
          signers: [d.quoteSigner],
          pausers: [d.pauser],
          treasury: d.treasury,
          allowedTokens: symbols,
          routes: {
            aifp1: { routeId: SPLITTER_V14_ROUTES.aifp1, treasuryBps: 100, ipCreatorBps: 0, enabled: true },
            aifp2: {
              routeId: SPLITTER_V14_ROUTES.aifp2,
              treasuryBps: 0,
              ipCreatorBps: 0,
              enabled: d.aifp2Enabled,
            },
          },
        },
      },
      tokens: Object.fromEntries(
        d.tokens.map((t) => [
          t.spec.symbol,
          {
            address: t.address,
            symbol: t.spec.symbol,
            name: t.spec.name,
            decimals: 6,
            ...(t.spec.eip712 ? { eip712: t.spec.eip712 } : {}),
            eip3009: t.spec.symbol === "USDC",
            permit: t.spec.symbol === "USDC",
            deploymentBlock: t.deploymentBlock,
          },
        ]),
      ),
      priceFeeds: d.priceFeed
        ? {
            "POL/USD": {
              address: d.priceFeed.address,
              pair: "POL/USD",
              decimals: d.priceFeed.decimals,
              deploymentBlock: d.priceFeed.deploymentBlock,
            },
          }
        : {},
      roles: {
        deployer: d.deployer,
        admin: d.deployer,
        pauser: d.pauser,
        treasury: d.treasury,
        quoteSigner: d.quoteSigner,
      },
    };
    out[chain.network] = entry;
  }
  const roleOf = new Map<string, string>([
    [LOCAL_ROLES.deployer, "deployer/admin/owner"],
    [LOCAL_ROLES.pauser, "pauser"],
    [LOCAL_ROLES.treasury, "treasury"],
    [LOCAL_ROLES.quoteSigner, "quote signer"],
  ]);
  return parseDeploymentManifest({
    schemaVersion: DEPLOYMENT_MANIFEST_SCHEMA_VERSION,
    generatedAt: new Date().toISOString(),
    dev: {
      mnemonic: HARDHAT_MNEMONIC,
      accounts: HARDHAT_ACCOUNTS.map((address, index) => ({
        index,
        address,
        ...(roleOf.has(address) ? { role: roleOf.get(address) } : {}),
      })),
    },
    chains: out,
  });
}

/** Human-readable summary (chain, RPC URL, addresses). */
export function formatSummary(chains: LocalChains): string {
  const lines: string[] = [];
  for (const c of chains.chains) {
    const d = c.deployment;
    lines.push(`${c.network} (chain id ${c.chainId})  ${c.rpcUrl}  ${c.wsUrl}`);
    lines.push(`  splitter v1.2   ${d.splitterV12.address}`);
    lines.push(
      `  splitter v1.4   ${d.splitterV14.address}${d.aifp2Enabled ? "  (aifp2 route enabled)" : ""}`,
    );
    for (const t of d.tokens) {
      const domain = t.spec.eip712 ? `  EIP-712 "${t.spec.eip712.name}"/"${t.spec.eip712.version}"` : "";
      lines.push(`  ${t.spec.symbol.padEnd(15)} ${t.address}${domain}`);
    }
    if (d.priceFeed) lines.push(`  POL/USD feed    ${d.priceFeed.address}`);
    lines.push(`  deployment block ${d.firstBlock}`);
  }
  const d0 = chains.chains[0]?.deployment;
  if (d0) {
    lines.push(
      `roles: deployer/admin ${d0.deployer}, pauser ${d0.pauser}, treasury ${d0.treasury}, quote signer ${d0.quoteSigner}`,
    );
  }
  lines.push(
    `funded: Hardhat accounts #0-#19 (mnemonic "${HARDHAT_MNEMONIC}") with native coin and 1,000,000 USDC/USDT`,
  );
  if (chains.manifestPath) lines.push(`manifest: ${chains.manifestPath}`);
  lines.push(`ready in ${chains.startupMs} ms`);
  return lines.join("\n");
}
