/**
 * What every MCP session shares: the one agent (one store belongs to one process; packages/agent store.ts),
 * the identity key and the configuration. Built once at start from {@link McpConfig}.
 */

import { readFileSync } from "node:fs";
import {
  type Agent,
  createAgent,
  FileAgentStore,
  legacySplittersFromManifest,
  x402AssetsFromManifest,
} from "@tollgate/agent";
import { type DeploymentManifest, parseDeploymentManifest } from "@tollgate/shared";
import type { McpConfig } from "./config";
import { routeStep } from "./spend-guard";

export interface Runtime {
  config: McpConfig;
  /** The agent, or why there is none (a missing or bad key). */
  agent: { ok: true; value: Agent; store: FileAgentStore } | { ok: false; reason: string };
  manifest: { ok: true; value: DeploymentManifest } | { ok: false; reason: string };
}

function loadManifest(path: string | undefined): Runtime["manifest"] {
  if (!path) return { ok: false, reason: "no TOLLGATE_DEPLOYMENT_MANIFEST: token balances unknown" };
  try {
    return { ok: true, value: parseDeploymentManifest(JSON.parse(readFileSync(path, "utf8"))) };
  } catch (error) {
    return { ok: false, reason: `deployment manifest ${path}: ${(error as Error).message}` };
  }
}

export function createRuntime(config: McpConfig): Runtime {
  const manifest = loadManifest(config.manifestPath);
  if (!config.account.ok) return { config, agent: config.account, manifest };
  const store = new FileAgentStore(config.storePath);
  const agent = createAgent({
    account: config.account.value,
    chains: Object.fromEntries([...config.rpcUrls].map(([id, rpcUrl]) => [id, { rpcUrl }])),
    limits: {
      maxPerPaymentUsd: config.limits.maxPerPaymentUsd,
      budgetPerPeriod: { usd: config.limits.budgetUsd, periodMs: config.limits.budgetPeriodMs },
      allowedOrigins: config.apiOrigins,
      ...(config.network ? { allowedNetworks: [config.network] } : {}),
    },
    store,
    // x402 402s (bridge, third-party x402 servers) are paid in the manifest's ERC-3009 stablecoins only.
    ...(manifest.ok
      ? {
          x402Assets: x402AssetsFromManifest(manifest.value),
          legacySplitters: legacySplittersFromManifest(manifest.value),
        }
      : {}),
    // The legacy bridge's pay_matic offer is counted in USD at these prices (decision 0081).
    nativeUsdPrices: config.nativeUsdPrices,
    preferences: {
      ...(config.network ? { network: config.network } : {}),
      ...(config.asset ? { asset: config.asset } : {}),
    },
    onStep: routeStep,
    timing: { pollingIntervalMs: 500 },
  });
  return { config, agent: { ok: true, value: agent, store }, manifest };
}
