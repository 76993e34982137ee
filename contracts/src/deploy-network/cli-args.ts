/**
 * Command line of `pnpm contracts:deploy` (docs/deploy.md): parsed once, checked before anything touches the
 * network. Secrets (the deployer key, the explorer API key) come from files or the environment, never from an
 * argument: arguments end up in shell history and in `ps` output (decision 0054).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Address, getAddress, type Hex, isAddress } from "viem";

/** A refusal the command reports as one line (exit code 2 for usage, 1 for everything else). */
export class DeployError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DeployError";
  }
}

export interface DeployArgs {
  network: string;
  rpcUrl: string;
  /** The RPC URL written into the manifest (default: `rpcUrl`); lets a keyed provider URL stay out of it. */
  manifestRpcUrl: string;
  deployerKey: Hex;
  admin: Address;
  quoteSigner: Address;
  pauser: Address;
  treasury: Address;
  /** Existing tokens to allow-list, keyed by symbol ("USDC"). */
  tokens: Record<string, Address>;
  /** Existing price feeds, keyed by pair ("POL/USD"). */
  priceFeeds: Record<string, Address>;
  testTokens: boolean;
  manifestPath: string;
  explorerApiKey?: string;
  explorerApiUrl?: string;
}

export const USAGE = `usage: pnpm contracts:deploy --network <name> --rpc <url> --deployer-key-file <file|-> \\
    --admin <address> --quote-signer <address> --pauser <address> --treasury <address> \\
    [--token USDC=<address>]... [--price-feed POL/USD=<address>] [--test-tokens] --manifest <file> \\
    [--manifest-rpc <url>] [--explorer-api-key-file <file>] [--explorer-api-url <url>]`;

const REFUSED_KEY_FLAGS = ["--deployer-key", "--private-key", "--key", "--explorer-api-key"];

/** Reads a secret from a file, or from standard input for "-"; trims surrounding whitespace. */
export type ReadSecret = (file: string) => string;

export const readSecretFile: ReadSecret = (file) => {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8").trim();
  } catch (cause) {
    const what = file === "-" ? "standard input" : file;
    const reason = (cause as NodeJS.ErrnoException).code ?? String(cause);
    throw new DeployError(`cannot read ${what}: ${reason}`, 1, { cause });
  }
};

function address(flag: string, value: string | undefined): Address {
  if (value === undefined) throw new DeployError(`missing --${flag} <address>\n${USAGE}`, 2);
  if (!isAddress(value, { strict: false })) throw new DeployError(`--${flag}: not an address: ${value}`, 2);
  return getAddress(value);
}

/** `SYMBOL=0x...` pairs of a repeatable flag; a label may appear once. */
function labelled(flag: string, values: readonly string[]): Record<string, Address> {
  const out: Record<string, Address> = {};
  for (const item of values) {
    const at = item.indexOf("=");
    const label = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (at <= 0 || !isAddress(value, { strict: false })) {
      throw new DeployError(`--${flag} expects LABEL=<address>, got ${item}`, 2);
    }
    if (label in out) throw new DeployError(`--${flag} ${label} given twice`, 2);
    out[label] = getAddress(value);
  }
  return out;
}

function url(flag: string, value: string | undefined): string {
  if (value === undefined) throw new DeployError(`missing --${flag} <url>\n${USAGE}`, 2);
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch (cause) {
    throw new DeployError(`--${flag}: not an http(s) URL: ${value}`, 2, { cause });
  }
  return value;
}

function privateKey(text: string, source: string): Hex {
  const key = (text.startsWith("0x") ? text : `0x${text}`) as Hex;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new DeployError(`${source} does not hold a 32-byte hex private key`);
  }
  return key;
}

/**
 * Parses argv (without the node and script entries). `env` supplies ETHERSCAN_API_KEY; `readSecret` reads the key
 * files (injectable for tests).
 */
export function parseDeployArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  readSecret: ReadSecret = readSecretFile,
): DeployArgs {
  for (const arg of argv) {
    const flag = arg.split("=")[0]!;
    if (REFUSED_KEY_FLAGS.includes(flag)) {
      throw new DeployError(
        `${flag} is refused: a key on the command line leaks into shell history and process lists; use ${flag === "--explorer-api-key" ? "--explorer-api-key-file or ETHERSCAN_API_KEY" : "--deployer-key-file <file> (or - for standard input)"}`,
        2,
      );
    }
  }
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (cause) {
    throw new DeployError(`${(cause as Error).message}\n${USAGE}`, 2, { cause });
  }
  if (!values.network) throw new DeployError(`missing --network <name>\n${USAGE}`, 2);
  if (!values.manifest) throw new DeployError(`missing --manifest <file>\n${USAGE}`, 2);
  const keyFile = values["deployer-key-file"];
  if (!keyFile) throw new DeployError(`missing --deployer-key-file <file>\n${USAGE}`, 2);
  const rpcUrl = url("rpc", values.rpc);
  const args: DeployArgs = {
    network: values.network,
    rpcUrl,
    manifestRpcUrl:
      values["manifest-rpc"] === undefined ? rpcUrl : url("manifest-rpc", values["manifest-rpc"]),
    deployerKey: "0x",
    admin: address("admin", values.admin),
    quoteSigner: address("quote-signer", values["quote-signer"]),
    pauser: address("pauser", values.pauser),
    treasury: address("treasury", values.treasury),
    tokens: labelled("token", values.token ?? []),
    priceFeeds: labelled("price-feed", values["price-feed"] ?? []),
    testTokens: values["test-tokens"] ?? false,
    manifestPath: values.manifest,
  };
  if (values["explorer-api-url"] !== undefined) {
    args.explorerApiUrl = url("explorer-api-url", values["explorer-api-url"]);
  }
  const apiKeyFile = values["explorer-api-key-file"];
  const apiKey = apiKeyFile ? readSecret(apiKeyFile) : env.ETHERSCAN_API_KEY?.trim();
  if (apiKey) args.explorerApiKey = apiKey;
  // The key file is read last, so a usage error never consumes standard input.
  const source = keyFile === "-" ? "standard input" : keyFile;
  args.deployerKey = privateKey(readSecret(keyFile), source);
  return args;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      network: { type: "string" },
      rpc: { type: "string" },
      "manifest-rpc": { type: "string" },
      "deployer-key-file": { type: "string" },
      admin: { type: "string" },
      "quote-signer": { type: "string" },
      pauser: { type: "string" },
      treasury: { type: "string" },
      token: { type: "string", multiple: true },
      "price-feed": { type: "string", multiple: true },
      "test-tokens": { type: "boolean" },
      manifest: { type: "string" },
      "explorer-api-key-file": { type: "string" },
      "explorer-api-url": { type: "string" },
    },
  });
}
