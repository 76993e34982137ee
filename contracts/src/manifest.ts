/**
 * The deployment manifest of the local chains (docs/local-chains.md): built from what was deployed, written
 * atomically to DATA_DIR, and summarised for people. Split from local-chains.ts.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
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
import { NETWORKS } from "@tollgate/shared/networks";
import { HARDHAT_ACCOUNTS, HARDHAT_MNEMONIC, LOCAL_ROLES } from "./deploy";

import type { LocalChain, LocalChains } from "./local-chains";

/** Writes JSON atomically (temp file in the same directory + rename): readers never see half a file. */
export function writeJsonAtomic(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, file);
}

/** Writes the manifest atomically so readers never see half a manifest; re-runs overwrite it. */
export function writeManifestFile(dataDir: string, manifest: DeploymentManifest): string {
  const file = path.join(dataDir, DEPLOYMENT_MANIFEST_FILE);
  writeJsonAtomic(file, manifest);
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
      x402: d.x402,
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
    lines.push(
      `  x402 escrow     ${d.x402.batchSettlement}  (Permit2, upto proxy, collectors, Multicall3: canonical)`,
    );
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
