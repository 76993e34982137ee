/**
 * Per-network follower configuration (DESIGN §3, checklist A5): the deployment manifest says where the
 * splitters are; its network list (decision 0057) gives default confirmation and reorg depths; the
 * environment may override both. Splitters are keyed by (chain id, version), never by address alone.
 */
import { buildNetworkList, type DeploymentManifest } from "@tollgate/shared/deployment";
import type { EvmNetworkName } from "@tollgate/shared/networks";
import type { Address } from "viem";
import type { IndexerEnv } from "./env";

export interface SplitterRef {
  version: "v1.2" | "v1.4";
  /** Lower-case. */
  address: Address;
}

/** Follower settings every network takes from the environment (`pollIntervalMs` may be overridden per network). */
type FollowerSettings = Pick<
  IndexerEnv,
  | "pollIntervalMs"
  | "getLogsInitialRange"
  | "getLogsMaxRange"
  | "maxLogsPerBatch"
  | "rpcTimeoutMs"
  | "stallAlertMs"
>;

export interface NetworkConfig extends FollowerSettings {
  network: EvmNetworkName;
  chainId: number;
  rpcUrl: string;
  splitters: SplitterRef[];
  /** The x402 batch-settlement escrow (lower-case), when the manifest names one: its claims are indexed too. */
  escrow?: Address;
  /** First block to index (the earliest splitter deployment block unless overridden). */
  startBlock: number;
  /** Depth (blocks including the payment's own) at which `seen` becomes `confirmed`. */
  confirmations: number;
  /** Deepest reorg repaired automatically; also the depth at which a settlement becomes `final`. */
  maxReorgDepth: number;
  /**
   * True on a local chain without STALL_ALERT_MS_<NAME>: an automining chain mines no block until a transaction
   * comes, so an unmoving head is noted at info and raises no alert (decision 0059, like the API's head-age check).
   */
  idleHeadIsNormal: boolean;
}

export function networkConfigs(
  manifest: DeploymentManifest,
  env: Pick<IndexerEnv, "networks" | "overrides"> & FollowerSettings,
): NetworkConfig[] {
  // The network list of the manifest followed (decision 0057): its facts give the default depths.
  const list = buildNetworkList(manifest);
  const out: NetworkConfig[] = [];
  for (const network of env.networks ?? list.names()) {
    const deployment = manifest.chains[network];
    const info = list.get(network);
    if (!deployment || !info) continue;
    const o = env.overrides[network] ?? {};
    const splitters: SplitterRef[] = [];
    const v12 = deployment.splitters["v1.2"];
    const v14 = deployment.splitters["v1.4"];
    if (v12) splitters.push({ version: "v1.2", address: v12.address.toLowerCase() as Address });
    if (v14) splitters.push({ version: "v1.4", address: v14.address.toLowerCase() as Address });
    if (splitters.length === 0) continue;
    const deploymentBlock = Math.min(
      ...[v12?.deploymentBlock, v14?.deploymentBlock].filter((b): b is number => b !== undefined),
    );
    out.push({
      network,
      chainId: deployment.chainId,
      rpcUrl: o.rpcUrl ?? deployment.rpcUrl,
      splitters,
      ...(deployment.x402?.batchSettlement
        ? { escrow: deployment.x402.batchSettlement.toLowerCase() as Address }
        : {}),
      startBlock: o.startBlock ?? deploymentBlock,
      confirmations: o.confirmations ?? (deployment.local ? 1 : info.defaultConfirmations),
      maxReorgDepth: o.maxReorgDepth ?? info.defaultMaxReorgDepth,
      pollIntervalMs: o.pollIntervalMs ?? env.pollIntervalMs,
      getLogsInitialRange: env.getLogsInitialRange,
      getLogsMaxRange: env.getLogsMaxRange,
      maxLogsPerBatch: env.maxLogsPerBatch,
      rpcTimeoutMs: env.rpcTimeoutMs,
      stallAlertMs: o.stallAlertMs ?? env.stallAlertMs,
      idleHeadIsNormal: deployment.local && o.stallAlertMs === undefined,
    });
  }
  return out;
}
