/**
 * Explorer verification (docs/deploy.md): the inputs an Etherscan-style explorer needs are derived from the Hardhat
 * build-info and from the deployment transaction itself, written beside the manifest, and submitted with
 * @nomicfoundation/hardhat-verify's Etherscan client when an API key is configured (decision 0054).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Etherscan } from "@nomicfoundation/hardhat-verify/etherscan";
import { type Address, type Hex, parseTransaction } from "viem";
import { readArtifact } from "../deploy";
import { CONTRACTS_ROOT } from "../hardhat";
import { writeJsonAtomic } from "../manifest";
import { DeployError } from "./cli-args";

export interface VerificationInput {
  address: Address;
  /** Fully qualified name, e.g. contracts/SplitterV12.sol:SplitterV12. */
  contract: string;
  /** e.g. v0.8.28+commit.7893614a (the form explorers expect). */
  compilerVersion: string;
  /** ABI-encoded constructor arguments, hex without 0x (the form explorers expect). */
  constructorArguments: string;
  /** Solidity standard JSON input holding only the sources this contract imports. */
  standardJsonInput: { language: string; sources: Record<string, unknown>; settings: unknown };
}

interface BuildInfo {
  solcLongVersion: string;
  input: { language: string; sources: Record<string, { content: string }>; settings: unknown };
  output: { sources: Record<string, { ast: { nodes: { nodeType: string; absolutePath?: string }[] } }> };
}

const buildInfoCache = new Map<string, BuildInfo>();

function buildInfoOf(name: string): { sourceName: string; info: BuildInfo } {
  const dir = path.join(CONTRACTS_ROOT, "artifacts/contracts", `${name}.sol`);
  const dbg = JSON.parse(readFileSync(path.join(dir, `${name}.dbg.json`), "utf8")) as { buildInfo: string };
  const file = path.resolve(dir, dbg.buildInfo);
  let info = buildInfoCache.get(file);
  if (!info) {
    info = JSON.parse(readFileSync(file, "utf8")) as BuildInfo;
    buildInfoCache.set(file, info);
  }
  return { sourceName: `contracts/${name}.sol`, info };
}

/** The source and everything it imports, transitively (from the compiler's own AST). */
function importClosure(info: BuildInfo, root: string): string[] {
  const seen = new Set<string>([root]);
  const queue = [root];
  while (queue.length > 0) {
    const source = queue.pop()!;
    for (const node of info.output.sources[source]?.ast.nodes ?? []) {
      if (node.nodeType === "ImportDirective" && node.absolutePath && !seen.has(node.absolutePath)) {
        seen.add(node.absolutePath);
        queue.push(node.absolutePath);
      }
    }
  }
  return [...seen].sort();
}

/**
 * Inputs for the contract `name` deployed at `address` by the signed transaction `raw`. The constructor arguments
 * are what followed the bytecode in that transaction; a build that no longer matches it is refused.
 */
export function verificationInput(name: string, address: Address, raw: Hex): VerificationInput {
  const { bytecode } = readArtifact(name);
  const data = parseTransaction(raw).data ?? "0x";
  if (!data.toLowerCase().startsWith(bytecode.toLowerCase())) {
    throw new DeployError(
      `${name} at ${address} was deployed from another build than contracts/artifacts: recompile the deployed sources to verify it`,
    );
  }
  const { sourceName, info } = buildInfoOf(name);
  const sources = Object.fromEntries(importClosure(info, sourceName).map((s) => [s, info.input.sources[s]]));
  return {
    address,
    contract: `${sourceName}:${name}`,
    compilerVersion: `v${info.solcLongVersion}`,
    constructorArguments: data.slice(bytecode.length),
    standardJsonInput: { language: info.input.language, sources, settings: info.input.settings },
  };
}

/** Writes one `<Contract>.json` per contract into `dir`; returns the files. */
export function writeVerificationFiles(dir: string, inputs: readonly VerificationInput[]): string[] {
  return inputs.map((input) => {
    const file = path.join(dir, `${input.contract.split(":")[1]}.json`);
    writeJsonAtomic(file, input);
    return file;
  });
}

export interface ExplorerConfig {
  apiKey: string;
  apiUrl: string;
  browserUrl: string;
  chainId: number;
}

/** The hardhat-verify client, speaking Etherscan's v2 wire format (chainid parameter) to `apiUrl`. */
export function explorerClient(config: ExplorerConfig): Etherscan {
  const client = new Etherscan(config.apiKey, config.apiUrl, config.browserUrl, config.chainId);
  // With a chain id the constructor pins Etherscan's own v2 URL; the configured URL (another Etherscan-compatible
  // explorer, or the test's loopback one) replaces it, keeping the v2 chainid parameter.
  client.apiUrl = config.apiUrl;
  return client;
}

export type VerificationOutcome = "verified" | "already verified" | "failed";

/** Submits each contract unless the explorer already shows its source; returns the outcome per contract. */
export async function submitVerification(
  config: ExplorerConfig,
  inputs: readonly VerificationInput[],
  log: (line: string) => void,
): Promise<Record<string, VerificationOutcome>> {
  const client = explorerClient(config);
  const outcomes: Record<string, VerificationOutcome> = {};
  for (const input of inputs) {
    const label = `${input.contract} at ${input.address}`;
    try {
      if (await client.isVerified(input.address)) {
        outcomes[input.address] = "already verified";
        log(`= verify ${label}: already verified`);
        continue;
      }
      const submitted = await client.verify(
        input.address,
        JSON.stringify(input.standardJsonInput),
        input.contract,
        input.compilerVersion,
        input.constructorArguments,
      );
      const status = await client.getVerificationStatus(submitted.message);
      outcomes[input.address] = status.isSuccess() || status.isAlreadyVerified() ? "verified" : "failed";
      log(
        `${status.isSuccess() ? "✓" : "✗"} verify ${label}: ${status.message}  ${client.getContractUrl(input.address)}`,
      );
    } catch (error) {
      outcomes[input.address] = "failed";
      log(`✗ verify ${label}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  return outcomes;
}
