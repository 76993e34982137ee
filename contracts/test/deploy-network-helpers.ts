/**
 * Real parts for the `pnpm contracts:deploy` tests: a bare `hardhat node` in its own process posing as any chain id
 * (no Tollgate contracts on it), the deploy CLI spawned as a user runs it, and key files of the node's funded
 * well-known accounts (loopback only: DESIGN §3).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Address, createPublicClient, type Hex, http, type PublicClient, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { HARDHAT_MNEMONIC } from "../src/deploy";
import { journalPath } from "../src/deploy-network/journal";
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

export interface FakeExplorer {
  url: string;
  /** Every request: its query parameters merged with its form body. */
  requests: Record<string, string>[];
  close(): Promise<void>;
}

/**
 * A loopback stand-in for an Etherscan-compatible explorer, speaking its API wire format (v2: `chainid` in the query):
 * getsourcecode answers with the source once verified, verifysourcecode returns a guid, checkverifystatus passes it.
 */
export async function startFakeExplorer(): Promise<FakeExplorer> {
  const verified = new Map<string, string>();
  const pending = new Map<string, Record<string, string>>();
  const requests: Record<string, string>[] = [];
  const server = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const params = {
        ...Object.fromEntries(new URL(req.url ?? "/", "http://x").searchParams),
        ...Object.fromEntries(new URLSearchParams(body)),
      };
      requests.push(params);
      const reply = (result: unknown, status = "1", message = "OK") => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ status, message, result }));
      };
      if (params.action === "getsourcecode") {
        const source = verified.get((params.address ?? "").toLowerCase()) ?? "";
        return reply([{ SourceCode: source, ContractName: "" }]);
      }
      if (params.action === "verifysourcecode") {
        const guid = `guid-${pending.size + 1}`;
        pending.set(guid, params);
        return reply(guid);
      }
      if (params.action === "checkverifystatus") {
        const submitted = pending.get(params.guid ?? "");
        if (!submitted) return reply("Fail - Unable to verify", "0", "NOTOK");
        verified.set((submitted.contractaddress ?? "").toLowerCase(), submitted.sourceCode ?? "");
        return reply("Pass - Verified");
      }
      reply("unknown action", "0", "NOTOK");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/api`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The transaction hash the deployment journal beside `manifestFile` records for `key`. */
export function journalStep(manifestFile: string, key: string): `0x${string}` {
  const journal = JSON.parse(readFileSync(journalPath(manifestFile, "amoy"), "utf8")) as {
    steps: Record<string, { hash: `0x${string}` }>;
  };
  return journal.steps[key]!.hash;
}

/** The roles as plain addresses (the manifest's `roles` shape without the deployer). */
export function mapAddresses(roles: typeof TEST_ROLES): Record<keyof typeof TEST_ROLES, Address> {
  return {
    admin: roles.admin.address,
    quoteSigner: roles.quoteSigner.address,
    pauser: roles.pauser.address,
    treasury: roles.treasury.address,
  };
}
