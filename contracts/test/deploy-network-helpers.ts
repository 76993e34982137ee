/**
 * Real parts for the `pnpm contracts:deploy` tests: a bare `hardhat node` in its own process posing as any chain id
 * (no Tollgate contracts on it), the deploy CLI spawned as a user runs it, and key files of the node's funded
 * well-known accounts (loopback only: DESIGN §3).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Address, createPublicClient, type Hex, http, type PublicClient, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { HARDHAT_MNEMONIC } from "../src/deploy";
import { CONTRACTS_ROOT } from "../src/hardhat";

const require = createRequire(import.meta.url);
export const REPO_ROOT = path.resolve(CONTRACTS_ROOT, "..");

/** Account `index` of Hardhat's well-known mnemonic (funded on every Hardhat node). */
export function wellKnown(index: number): { address: Address; key: Hex } {
  const account = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: index });
  return { address: account.address, key: toHex(account.getHdKey().privateKey!) };
}

/** Roles used by the tests: distinct accounts #1-#4; deployers are other accounts. */
export const TEST_ROLES = {
  admin: wellKnown(1),
  quoteSigner: wellKnown(2),
  pauser: wellKnown(3),
  treasury: wellKnown(4),
};

export function roleArgs(roles = TEST_ROLES): string[] {
  return [
    "--admin",
    roles.admin.address,
    "--quote-signer",
    roles.quoteSigner.address,
    "--pauser",
    roles.pauser.address,
    "--treasury",
    roles.treasury.address,
  ];
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `tollgate-${prefix}-`));
}

export function writeKeyFile(dir: string, key: Hex): string {
  const file = path.join(dir, "deployer.key");
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return file;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface HardhatNode {
  url: string;
  client: PublicClient;
  stop(): Promise<void>;
}

/** `hardhat node` with `chainId`, in a project of its own (nothing to compile, nothing deployed). */
export async function startHardhatNode(chainId: number): Promise<HardhatNode> {
  const dir = tempDir("node");
  const config = path.join(dir, "hardhat.config.cjs");
  writeFileSync(
    config,
    `module.exports = { networks: { hardhat: { chainId: ${chainId}, hardfork: "cancun", loggingEnabled: false } } };\n`,
  );
  const port = await freePort();
  const cli = require.resolve("hardhat/internal/cli/cli.js", { paths: [CONTRACTS_ROOT] });
  const child = spawn(
    process.execPath,
    [cli, "node", "--config", config, "--hostname", "127.0.0.1", "--port", String(port)],
    { cwd: CONTRACTS_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Started HTTP")) resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`hardhat node exited (${code}): ${output}`)));
  });
  child.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    client: createPublicClient({ transport: http(url, { retryCount: 0 }) }),
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the deploy command as a person does: `pnpm contracts:deploy ...` from the repository root (`viaPnpm`), or
 * the same script through tsx directly (faster). `stdin` is written to its standard input.
 */
export function runDeployCli(
  args: readonly string[],
  opts: { stdin?: string; env?: NodeJS.ProcessEnv; viaPnpm?: boolean } = {},
): Promise<CliRun> {
  const env = { ...process.env, ETHERSCAN_API_KEY: "", ...opts.env };
  const [command, argv] = opts.viaPnpm
    ? ["pnpm", ["-s", "contracts:deploy", ...args]]
    : [process.execPath, ["--import", "tsx", "contracts/scripts/deploy.ts", ...args]];
  const child = spawn(command, argv, { cwd: REPO_ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(opts.stdin ?? "");
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
