/**
 * A bare `hardhat node` in its own process posing as any chain id (nothing compiled, nothing deployed: a stand-in for
 * a remote network), and `pnpm contracts:deploy` spawned as an operator runs it. Test and drill support
 * (docs/deploy.md "What the tests run"); imported as `@tollgate/contracts/hardhat-node`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@tollgate/shared/test-process";
import { createPublicClient, http, type PublicClient } from "viem";
import { CONTRACTS_ROOT } from "./hardhat";

const require = createRequire(import.meta.url);
export const REPO_ROOT = path.resolve(CONTRACTS_ROOT, "..");

export interface HardhatNode {
  url: string;
  client: PublicClient;
  stop(): Promise<void>;
}

/**
 * `hardhat node` with `chainId`, in a project of its own (nothing to compile, nothing deployed). With
 * `blockIntervalMs` it also mines a block at that interval, as a live chain does, besides one per transaction.
 */
export async function startHardhatNode(
  chainId: number,
  options: { blockIntervalMs?: number } = {},
): Promise<HardhatNode> {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-node-"));
  const config = path.join(dir, "hardhat.config.cjs");
  const mining = options.blockIntervalMs
    ? `, mining: { auto: true, interval: ${options.blockIntervalMs} }`
    : "";
  writeFileSync(
    config,
    `module.exports = { networks: { hardhat: { chainId: ${chainId}, hardfork: "cancun", loggingEnabled: false${mining} } } };\n`,
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
