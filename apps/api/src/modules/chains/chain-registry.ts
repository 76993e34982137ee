/**
 * Chain registry (DESIGN.md §3): per network, its deployment (from the manifest), an RPC client and the
 * confirmation policy. Keyed by network name and chain id, never by contract address.
 */
import { existsSync, readFileSync } from "node:fs";
import { rpcFetch } from "@tollgate/outbound";
import {
  buildNetworkList,
  type ChainDeployment,
  type DeploymentManifest,
  type EvmNetwork,
  type EvmNetworkName,
  isLoopbackHost,
  type NetworkList,
  parseDeploymentManifest,
  StartupRefusal,
  viemChain,
} from "@tollgate/shared";
import { createPublicClient, http, type PublicClient } from "viem";
import { mnemonicToAccount } from "viem/accounts";

export interface ChainContext {
  network: EvmNetworkName;
  /** The network's facts from the runtime list (decision 0057). */
  info: EvmNetwork;
  chainId: number;
  deployment: ChainDeployment;
  client: PublicClient;
  /** Blocks on top of (and including) the payment's block before a receipt is issued. */
  confirmations: number;
}

export interface ChainRegistry {
  /** The runtime network list, built once at start (decision 0057); contexts exist for its deployed subset. */
  networks: NetworkList;
  get(network: EvmNetworkName): ChainContext | undefined;
  byChainId(chainId: number): ChainContext | undefined;
  all(): ChainContext[];
}

export interface ChainSettings {
  /** Default: built from the manifest (loadEnv builds it once and passes it here). */
  networks?: NetworkList | undefined;
  /** Keyed by network name. */
  rpcUrls: Readonly<Record<EvmNetworkName, string>>;
  confirmations: Readonly<Record<EvmNetworkName, number>>;
  /** Local chains mine on demand; one confirmation is the default there (docs/payments.md). */
  localConfirmations: number;
  rpcTimeoutMs: number;
}

export function readManifest(path: string): DeploymentManifest | undefined {
  if (!existsSync(path)) return undefined;
  return parseDeploymentManifest(JSON.parse(readFileSync(path, "utf8")));
}

export function createChainRegistry(
  manifest: DeploymentManifest | undefined,
  settings: ChainSettings,
): ChainRegistry {
  const networks = settings.networks ?? buildNetworkList(manifest);
  const contexts = new Map<EvmNetworkName, ChainContext>();
  for (const info of networks.all) {
    const network = info.name;
    const deployment = manifest?.chains[network];
    if (!deployment) continue;
    if (deployment.chainId !== info.chainId) {
      throw new Error(
        `${network}: the manifest's chain ${deployment.chainId} is not the network list's ${info.chainId}`,
      );
    }
    const rpcUrl = settings.rpcUrls[network] ?? deployment.rpcUrl;
    const chain = viemChain({
      chainId: deployment.chainId,
      name: network,
      nativeSymbol: deployment.nativeSymbol,
      rpcUrl,
    });
    contexts.set(network, {
      network,
      info,
      chainId: deployment.chainId,
      deployment: { ...deployment, rpcUrl },
      client: createPublicClient({
        chain,
        transport: http(rpcUrl, { timeout: settings.rpcTimeoutMs, retryCount: 1, fetchFn: rpcFetch }),
      }) as PublicClient,
      confirmations:
        settings.confirmations[network] ??
        (deployment.local ? settings.localConfirmations : info.defaultConfirmations),
    });
  }
  return {
    networks,
    get: (network) => contexts.get(network),
    byChainId: (chainId) => [...contexts.values()].find((context) => context.chainId === chainId),
    all: () => [...contexts.values()],
  };
}

/** Hardhat's well-known development mnemonic: its keys are public and must never guard real money. */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";

let wellKnown: Map<string, `0x${string}`> | undefined;
/** Address -> private key of Hardhat's first 20 development accounts. */
export function wellKnownDevKeys(): Map<string, `0x${string}`> {
  if (!wellKnown) {
    wellKnown = new Map();
    for (let index = 0; index < 20; index++) {
      const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });
      const key = account.getHdKey().privateKey;
      if (key) wellKnown.set(account.address.toLowerCase(), `0x${Buffer.from(key).toString("hex")}`);
    }
  }
  return wellKnown;
}

export function isWellKnownDevKey(privateKey: string): boolean {
  return [...wellKnownDevKeys().values()].some((key) => key.toLowerCase() === privateKey.toLowerCase());
}

/** DESIGN.md §3: a well-known test key against a non-loopback RPC is refused at start-up. */
export function assertNoDevKeyOnRemoteRpc(registry: ChainRegistry, keys: (string | undefined)[]): void {
  if (!keys.some((key) => key !== undefined && isWellKnownDevKey(key))) return;
  for (const context of registry.all()) {
    const host = new URL(context.deployment.rpcUrl).hostname;
    if (!isLoopbackHost(host)) {
      throw new StartupRefusal(
        `refusing to start: a well-known development key is configured while ${context.network} uses the non-loopback RPC ${host}`,
      );
    }
  }
}
