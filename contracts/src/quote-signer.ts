/**
 * Quote signers of splitter v1.4 (DESIGN §4, §9; docs/keys.md "Quote signers"): grant SIGNER_ROLE to a new
 * signer, revoke it from an old one, and report who holds it, keeping the deployment manifest's `signers` list in
 * step. Transactions are signed here with the admin key (read from a file by the caller, never an argument) and
 * sent raw over the RPC URL: nothing is asked of the node but standard methods.
 * Invariants: a signer's quotes are payable while it holds the role, so the old signer is revoked only after
 * the API stopped signing with it and QUOTE_TTL_SECONDS passed; the last signer is never revoked; the manifest
 * is written only after the transaction is mined, and only when the chain agrees.
 */
import { readFileSync, statSync } from "node:fs";
import { splitterV14Abi } from "@tollgate/shared/abi/index";
import { viemChain } from "@tollgate/shared/chain";
import { SPLITTER_V14_ROLES } from "@tollgate/shared/contracts";
import {
  type DeploymentManifest,
  parseDeploymentManifest,
  type SplitterV14Deployment,
} from "@tollgate/shared/deployment";
import type { EvmNetworkName } from "@tollgate/shared/networks";
import { fileProblem } from "@tollgate/shared/startup-check";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hash,
  type Hex,
  http,
  isHex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { writeJsonAtomic } from "./manifest";

/** A refusal the operator must act on; the CLI prints its message alone. */
export class QuoteSignerError extends Error {
  override readonly name = "QuoteSignerError";
}

export interface QuoteSignerTarget {
  network: EvmNetworkName;
  rpcUrl: string;
  manifestPath: string;
}

export interface SignerStatus {
  address: Address;
  /** Holds SIGNER_ROLE on the splitter now. */
  onChain: boolean;
  /** Listed in the manifest's `signers`. */
  inManifest: boolean;
}

/** The admin's private key from a file (hex, one line); refused when others may read the file. */
export function readAdminKeyFile(file: string): Hex {
  let mode: number;
  let key: string;
  try {
    mode = statSync(file).mode & 0o077;
    key = readFileSync(file, "utf8").trim();
  } catch (error) {
    // One line naming the flag and the path (the CLI exits 2), never a stack trace (decision 0059).
    throw new QuoteSignerError(`--admin-key-file: ${file}: ${fileProblem(error)}`, { cause: error });
  }
  if (mode !== 0) throw new QuoteSignerError(`${file} is readable by others: chmod 600 it first`);
  if (!isHex(key) || key.length !== 66)
    throw new QuoteSignerError(`${file} does not hold a 32-byte hex private key`);
  return key;
}

function splitterOf(target: QuoteSignerTarget): {
  manifest: DeploymentManifest;
  chainId: number;
  splitter: SplitterV14Deployment;
} {
  const manifest = parseDeploymentManifest(JSON.parse(readFileSync(target.manifestPath, "utf8")));
  const chain = manifest.chains[target.network];
  const splitter = chain?.splitters["v1.4"];
  if (!chain || !splitter) {
    throw new QuoteSignerError(`${target.manifestPath} has no splitter v1.4 on ${target.network}`);
  }
  return { manifest, chainId: chain.chainId, splitter };
}

async function clientFor(target: QuoteSignerTarget, chainId: number): Promise<PublicClient> {
  const client = createPublicClient({
    chain: viemChain({ chainId, rpcUrl: target.rpcUrl }),
    transport: http(target.rpcUrl),
  }) as PublicClient;
  const actual = await client.getChainId();
  if (actual !== chainId) {
    throw new QuoteSignerError(
      `${target.rpcUrl} serves chain ${actual}, the manifest's ${target.network} is ${chainId}`,
    );
  }
  return client;
}

const holdsRole = (client: PublicClient, splitter: Address, account: Address) =>
  client.readContract({
    address: splitter,
    abi: splitterV14Abi,
    functionName: "hasRole",
    args: [SPLITTER_V14_ROLES.signer, account],
  });

/** Every signer the manifest lists, plus `extra` addresses, with whether each holds the role on chain. */
export async function quoteSignerStatus(
  target: QuoteSignerTarget,
  extra: Address[] = [],
): Promise<SignerStatus[]> {
  const { chainId, splitter } = splitterOf(target);
  const client = await clientFor(target, chainId);
  const listed = splitter.signers.map((address) => getAddress(address));
  const all = [...new Set([...listed, ...extra.map((address) => getAddress(address))])];
  return Promise.all(
    all.map(async (address) => ({
      address,
      onChain: await holdsRole(client, splitter.address as Address, address),
      inManifest: listed.includes(address),
    })),
  );
}

async function changeRole(
  target: QuoteSignerTarget,
  adminKey: Hex,
  address: Address,
  change: "grantRole" | "revokeRole",
): Promise<{ txHash: Hash | undefined; signers: Address[] }> {
  const { manifest, chainId, splitter } = splitterOf(target);
  const client = await clientFor(target, chainId);
  const account = getAddress(address);
  const splitterAddress = splitter.address as Address;
  const admin = privateKeyToAccount(adminKey);
  const isAdmin = await client.readContract({
    address: splitterAddress,
    abi: splitterV14Abi,
    functionName: "hasRole",
    args: [SPLITTER_V14_ROLES.admin, admin.address],
  });
  if (!isAdmin)
    throw new QuoteSignerError(`${admin.address} (the admin key file) is not the splitter's admin`);
  const held = await holdsRole(client, splitterAddress, account);
  let txHash: Hash | undefined;
  if (held !== (change === "grantRole")) {
    const wallet = createWalletClient({
      account: admin,
      chain: viemChain({ chainId, rpcUrl: target.rpcUrl }),
      transport: http(target.rpcUrl),
    });
    txHash = await wallet.writeContract({
      address: splitterAddress,
      abi: splitterV14Abi,
      functionName: change,
      args: [SPLITTER_V14_ROLES.signer, account],
    });
    const receipt = await client.waitForTransactionReceipt({ hash: txHash });
    if (receipt.status !== "success") throw new QuoteSignerError(`${change} reverted in ${txHash}`);
  }
  // The manifest follows the chain: written only once the chain says so.
  const nowHeld = await holdsRole(client, splitterAddress, account);
  if (nowHeld !== (change === "grantRole"))
    throw new QuoteSignerError(`the chain does not show ${change} done`);
  const others = splitter.signers.map((signer) => getAddress(signer)).filter((signer) => signer !== account);
  const signers = change === "grantRole" ? [...others, account] : others;
  splitter.signers = signers;
  writeJsonAtomic(target.manifestPath, manifest);
  return { txHash, signers };
}

/** Grants SIGNER_ROLE to `address` (idempotent) and lists it in the manifest. */
export function grantQuoteSigner(target: QuoteSignerTarget, adminKey: Hex, address: Address) {
  return changeRole(target, adminKey, address, "grantRole");
}

/** Revokes SIGNER_ROLE from `address` and drops it from the manifest; refused for the last signer holding it. */
export async function revokeQuoteSigner(target: QuoteSignerTarget, adminKey: Hex, address: Address) {
  const status = await quoteSignerStatus(target, [address]);
  const remaining = status.filter((signer) => signer.onChain && signer.address !== getAddress(address));
  if (remaining.length === 0) {
    throw new QuoteSignerError(
      `${getAddress(address)} is the only signer holding SIGNER_ROLE: grant the new one first (quotes would stop)`,
    );
  }
  return changeRole(target, adminKey, address, "revokeRole");
}
