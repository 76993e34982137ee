import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { DeploymentManifest } from "@tollgate/shared/deployment";
import { type KnownNetworkName, LOCAL_CHAIN_NETWORKS, NETWORKS } from "@tollgate/shared/networks";
import type { Address, EIP1193Provider } from "viem";
import { type Deployment, deployTollgate, HARDHAT_ACCOUNTS, LOCAL_ROLES, type TokenSpec } from "./deploy";
import {
  CONTRACTS_ROOT,
  compileContracts,
  createInProcessNetwork,
  createJsonRpcHandler,
  loadHardhat,
  loadWsServer,
} from "./hardhat";
import type { JournalWriter } from "./local-chains-journal";
import { type ChainState, chainFingerprint, openChain } from "./local-chains-state";
import { buildManifest, formatSummary, writeJsonAtomic, writeManifestFile } from "./manifest";
import { X402_LOCAL_CONTRACTS } from "./x402-placement";

export const DEFAULT_CHAINS_BASE_PORT = 8545;
/** Port offset of each network from the base port (base-sepolia only when asked for: decision 0057). */
export const CHAIN_PORT_OFFSETS: Readonly<Record<KnownNetworkName, number>> = {
  polygon: 0,
  base: 1,
  amoy: 2,
  "base-sepolia": 3,
};
/** Test tokens minted to every well-known account: 1,000,000 USDC / USDT (6 decimals). */
export const FUND_TOKEN_AMOUNT = 1_000_000n * 10n ** 6n;
/** Initial POL/USD answer of the price feed: 0.25 USD, 8 decimals. */
export const INITIAL_POL_USD = 25_000_000n;

/**
 * Real networks' token addresses (x402-wire §e.7; docs/local-chains.md): the local test tokens are placed there, so
 * stock x402 clients whose default spend controls accept only canonical USDC pay the local chains. Only this table
 * and the manifest it produces name them.
 */
export const REAL_TOKEN_ADDRESSES = {
  polygon: {
    USDC: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
    USDT: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
  },
  base: { USDC: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
  amoy: { USDC: "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582" },
  "base-sepolia": { USDC: NETWORKS["base-sepolia"].tokens.USDC!.address },
} as const satisfies Record<KnownNetworkName, Partial<Record<"USDC" | "USDT", Address>>>;

/** Per-network test deployment: tokens mimic the real USDC/USDT of that network (x402-wire §e.7). */
const NETWORK_SETUP: Readonly<
  Record<KnownNetworkName, { tokens: TokenSpec[]; priceFeed: boolean; aifp2: boolean }>
> = {
  polygon: {
    tokens: [
      {
        symbol: "USDC",
        name: "USD Coin",
        eip712: { name: "USD Coin", version: "2" },
        at: REAL_TOKEN_ADDRESSES.polygon.USDC,
      },
      // The real one is "(PoS) Tether USD" (a bridged child token: no ERC-3009, no permit); so is this one.
      { symbol: "USDT", name: "(PoS) Tether USD", at: REAL_TOKEN_ADDRESSES.polygon.USDT },
    ],
    priceFeed: true,
    aifp2: false,
  },
  base: {
    tokens: [
      {
        symbol: "USDC",
        name: "USD Coin",
        eip712: { name: "USD Coin", version: "2" },
        at: REAL_TOKEN_ADDRESSES.base.USDC,
      },
    ],
    priceFeed: false,
    aifp2: false,
  },
  amoy: {
    tokens: [
      {
        symbol: "USDC",
        name: "USDC",
        eip712: { name: "USDC", version: "2" },
        at: REAL_TOKEN_ADDRESSES.amoy.USDC,
      },
      // No real USDT on amoy: it stays where the deployer's nonce puts it.
      { symbol: "USDT", name: "Tether USD" },
    ],
    priceFeed: true,
    aifp2: true,
  },
  // Started only when a caller names it (tests of a manifest-added network); Circle's USDC domain.
  "base-sepolia": {
    tokens: [
      {
        symbol: "USDC",
        name: "USDC",
        eip712: NETWORKS["base-sepolia"].tokens.USDC!.eip712,
        at: REAL_TOKEN_ADDRESSES["base-sepolia"].USDC,
      },
    ],
    priceFeed: false,
    aifp2: false,
  },
};

export interface LocalChainsOptions {
  /** Where deployments.json is written. Default: `.tollgate/` at the repo root (`pnpm chains` passes DATA_DIR). */
  dataDir?: string;
  /** polygon = basePort, base = basePort + 1, amoy = basePort + 2. 0 = pick free ports. Default 8545. */
  basePort?: number;
  /** Loopback only (the well-known keys must never face a network). Default 127.0.0.1. */
  host?: string;
  /** Default: polygon, base and amoy (`LOCAL_CHAIN_NETWORKS`); base-sepolia only when named. */
  networks?: readonly KnownNetworkName[];
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
  /** Solidity stack traces in errors (default true); benchmarks turn them off to mine big batches faster. */
  stackTraces?: boolean;
  /**
   * Keep each chain's blocks, balances and contracts across starts in `dataDir/chains/<network>/` (decision 0058):
   * the first start deploys and journals, later ones replay. Default false (a new chain on every start).
   */
  persist?: boolean;
}

export interface LocalChain {
  network: KnownNetworkName;
  chainId: number;
  rpcUrl: string;
  wsUrl: string;
  /** The same chain in-process (no HTTP), for fast tests. */
  provider: EIP1193Provider;
  deployment: Deployment;
  /** Set when `persist`: whether the recorded state was kept, and the genesis hash (the chain's identity). */
  state?: ChainState;
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

/** `.tollgate/` at the repo root; entry points that honour DATA_DIR pass it as `dataDir`. */
export function defaultDataDir(): string {
  return path.resolve(CONTRACTS_ROOT, "..", ".tollgate");
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
  const networks = opts.networks ?? LOCAL_CHAIN_NETWORKS;
  const quoteSigner = opts.quoteSigner ?? LOCAL_ROLES.quoteSigner;

  const hre = loadHardhat();
  const compile = opts.compile ?? "if-missing";
  if (compile === "always" || (compile === "if-missing" && !artifactsPresent())) {
    await compileContracts(hre);
    log(`compiled contracts (${Math.round(performance.now() - started)} ms)`);
  } else if (!artifactsPresent()) {
    throw new Error("contract artifacts missing: run `pnpm --filter @tollgate/contracts compile`");
  }

  const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : defaultDataDir();
  const servers: RpcServer[] = [];
  const journals: JournalWriter[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.close()));
    for (const journal of journals) journal.close();
  };
  try {
    // Bind every port before deploying anything, so a busy port fails fast and writes nothing.
    const opened = await Promise.all(
      networks.map((network) =>
        prepareChain(network, { ...opts, dataDir, quoteSigner }, hre).then((chain) => {
          if (chain.journal) journals.push(chain.journal);
          return chain;
        }),
      ),
    );
    const bound: (RpcServer & { port: number })[] = [];
    for (const [k, network] of networks.entries()) {
      const port = basePort === 0 ? 0 : basePort + CHAIN_PORT_OFFSETS[network];
      const server = await listen(opened[k]!.provider, host, port, network);
      servers.push(server);
      bound.push(server);
    }
    log(`chains listening (${Math.round(performance.now() - started)} ms)`);

    const finished = await Promise.all(
      networks.map((network, k) =>
        opened[k]!.finish((provider) => deployTollgate(provider, deployOptions(network, quoteSigner))),
      ),
    );
    const deployments = finished.map((f) => f.deployment);
    log(`deployed (${Math.round(performance.now() - started)} ms)`);

    const chains: LocalChain[] = networks.map((network, k) => ({
      network,
      chainId: NETWORKS[network].chainId,
      rpcUrl: bound[k]!.url,
      wsUrl: bound[k]!.wsUrl,
      provider: opened[k]!.provider,
      deployment: deployments[k]!,
      ...(finished[k]!.state ? { state: finished[k]!.state } : {}),
    }));
    const manifest = buildManifest(chains);
    let manifestPath: string | undefined;
    if (opts.writeManifest ?? true) {
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

function deployOptions(network: KnownNetworkName, quoteSigner: Address) {
  return {
    chainId: NETWORKS[network].chainId,
    tokens: NETWORK_SETUP[network].tokens,
    ...(NETWORK_SETUP[network].priceFeed ? { polUsdPrice: INITIAL_POL_USD } : {}),
    enableAifp2: NETWORK_SETUP[network].aifp2,
    quoteSigner,
    fund: { accounts: HARDHAT_ACCOUNTS, amount: FUND_TOKEN_AMOUNT },
  };
}

interface PreparedChain {
  provider: EIP1193Provider;
  journal?: JournalWriter;
  finish(
    deploy: (provider: EIP1193Provider) => Promise<Deployment>,
  ): Promise<{ deployment: Deployment; state?: ChainState }>;
}

/** The chain before its port is bound: new, or (persist) replayed from the data directory. */
async function prepareChain(
  network: KnownNetworkName,
  opts: LocalChainsOptions & { dataDir: string; quoteSigner: Address },
  hre: ReturnType<typeof loadHardhat>,
): Promise<PreparedChain> {
  const chainId = NETWORKS[network].chainId;
  const options = { chainId, ...(opts.stackTraces === false ? { stackTraces: false } : {}) };
  if (!opts.persist) {
    const provider = await createInProcessNetwork(options, hre);
    return { provider, finish: async (deploy) => ({ deployment: await deploy(provider) }) };
  }
  const deploy = deployOptions(network, opts.quoteSigner);
  const fingerprint = chainFingerprint({
    chainId,
    network: options,
    deploy: { ...deploy, polUsdPrice: deploy.polUsdPrice?.toString(), fund: FUND_TOKEN_AMOUNT.toString() },
    // The x402 contracts' code is part of what a kept chain must match (docs/decisions/0080).
    contracts: [...DEPLOYED_CONTRACTS, ...Object.values(X402_LOCAL_CONTRACTS)],
  });
  return openChain({ dataDir: opts.dataDir, network, chainId, options, fingerprint });
}

export { buildManifest, formatSummary, writeJsonAtomic, writeManifestFile };
