/**
 * Loads the Hardhat 2 runtime in-process from ESM code, independent of the current directory and of
 * HARDHAT_* environment variables, and creates extra in-process Hardhat networks (one per chain id).
 * Hardhat 2 is CommonJS and its network/provider constructors are internal modules, so they are
 * reached through createRequire; the shapes used are typed below (stack-recipes §3a).
 */
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Artifacts, HardhatConfig, HardhatRuntimeEnvironment } from "hardhat/types";
import type { EIP1193Provider } from "viem";

const require = createRequire(import.meta.url);

export const CONTRACTS_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const HARDHAT_CONFIG_PATH = path.join(CONTRACTS_ROOT, "hardhat.config.cjs");

interface HardhatContextLike {
  environment?: HardhatRuntimeEnvironment;
  tasksDSL: { getTaskDefinitions(): unknown; getScopesDefinitions(): unknown };
  environmentExtenders: unknown;
  providerExtenders: unknown;
  setHardhatRuntimeEnvironment(env: HardhatRuntimeEnvironment): void;
}
interface HardhatContextStatic {
  isCreated(): boolean;
  createHardhatContext(): HardhatContextLike;
  getHardhatContext(): HardhatContextLike;
}
type EnvironmentCtor = new (
  config: HardhatConfig,
  args: Record<string, unknown>,
  tasks: unknown,
  scopes: unknown,
  envExtenders: unknown,
  userConfig: unknown,
  providerExtenders: unknown,
) => HardhatRuntimeEnvironment;

let cached: HardhatRuntimeEnvironment | undefined;

/**
 * The Hardhat runtime for contracts/hardhat.config.cjs (one per process). Its default network
 * (`hre.network.provider`, chain id 31337) is the in-process network the contract tests use.
 */
export function loadHardhat(): HardhatRuntimeEnvironment {
  if (cached) return cached;
  const { HardhatContext } = require("hardhat/internal/context") as { HardhatContext: HardhatContextStatic };
  if (HardhatContext.isCreated()) {
    const env = HardhatContext.getHardhatContext().environment;
    if (env && env.config.paths.configFile === HARDHAT_CONFIG_PATH) {
      cached = env;
      return env;
    }
    throw new Error(
      `a different Hardhat runtime is already loaded in this process (${env?.config.paths.configFile})`,
    );
  }
  const { loadConfigAndTasks } = require("hardhat/internal/core/config/config-loading") as {
    loadConfigAndTasks(args: Record<string, unknown>): { resolvedConfig: HardhatConfig; userConfig: unknown };
  };
  const { Environment } = require("hardhat/internal/core/runtime-environment") as {
    Environment: EnvironmentCtor;
  };
  const ctx = HardhatContext.createHardhatContext();
  const args: Record<string, unknown> = {
    network: "hardhat",
    config: HARDHAT_CONFIG_PATH,
    showStackTraces: false,
    version: false,
    help: false,
    emoji: false,
    verbose: false,
    typecheck: false,
    flamegraph: false,
  };
  const { resolvedConfig, userConfig } = loadConfigAndTasks(args);
  const env = new Environment(
    resolvedConfig,
    args,
    ctx.tasksDSL.getTaskDefinitions(),
    ctx.tasksDSL.getScopesDefinitions(),
    ctx.environmentExtenders,
    userConfig,
    ctx.providerExtenders,
  );
  ctx.setHardhatRuntimeEnvironment(env);
  cached = env;
  return env;
}

/** Compiles if sources changed (offline, incremental; about 0.5 s when nothing changed). */
export async function compileContracts(hre: HardhatRuntimeEnvironment = loadHardhat()): Promise<void> {
  await hre.run("compile", { quiet: true });
}

export interface InProcessNetworkOptions {
  chainId: number;
  /** Default 30M, like the real chains. */
  blockGasLimit?: number;
  /** Default 1 gwei. */
  initialBaseFeePerGas?: number;
  /**
   * Give the network the compiled artifacts for Solidity stack traces in errors (default true).
   * Without them big batch transactions run several times faster (no per-step tracing).
   */
  stackTraces?: boolean;
  /** Genesis date (and the chain clock's start). Default: now. Local chains kept across restarts fix it (0058). */
  initialDate?: Date;
}

/** A fresh, independent in-process Hardhat network (own state, own chain id) as an EIP-1193 provider. */
// Returned as viem's EIP1193Provider type so it plugs into `custom(provider)` directly.
export async function createInProcessNetwork(
  opts: InProcessNetworkOptions,
  hre: HardhatRuntimeEnvironment = loadHardhat(),
): Promise<EIP1193Provider> {
  const { createProvider } = require("hardhat/internal/core/providers/construction") as {
    createProvider(config: HardhatConfig, networkName: string, artifacts?: Artifacts): Promise<unknown>;
  };
  const base = hre.config.networks.hardhat;
  const config: HardhatConfig = {
    ...hre.config,
    networks: {
      ...hre.config.networks,
      hardhat: {
        ...base,
        chainId: opts.chainId,
        blockGasLimit: opts.blockGasLimit ?? 30_000_000,
        initialBaseFeePerGas: opts.initialBaseFeePerGas ?? 1_000_000_000,
        loggingEnabled: false,
        mining: { ...base.mining, auto: true, interval: 0 },
        ...(opts.initialDate ? { initialDate: opts.initialDate.toISOString() } : {}),
      },
    },
  };
  const provider = await createProvider(
    config,
    "hardhat",
    opts.stackTraces === false ? undefined : hre.artifacts,
  );
  // Hardhat's provider implements EIP-1193 at runtime; its TS type differs from viem's only nominally.
  return provider as EIP1193Provider;
}

/** Hardhat's JSON-RPC request handler (HTTP and WebSocket) for a provider. */
export interface JsonRpcHandlerLike {
  handleHttp: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void;
  handleWs: (ws: unknown) => void;
}

export function createJsonRpcHandler(provider: EIP1193Provider): JsonRpcHandlerLike {
  const { JsonRpcHandler } = require("hardhat/internal/hardhat-network/jsonrpc/handler") as {
    JsonRpcHandler: new (provider: unknown) => JsonRpcHandlerLike;
  };
  return new JsonRpcHandler(provider);
}

/** `ws` as Hardhat itself resolves it (it is Hardhat's dependency, not ours). */
export function loadWsServer(): new (opts: {
  server: import("node:http").Server;
}) => {
  on(event: "connection", cb: (ws: unknown) => void): void;
  close(cb: (err?: Error) => void): void;
  clients: Set<{ terminate(): void }>;
} {
  const hardhatRequire = createRequire(require.resolve("hardhat/package.json"));
  return (hardhatRequire("ws") as { Server: ReturnType<typeof loadWsServer> }).Server;
}
