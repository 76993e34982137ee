/**
 * The `tollgate-agent pay` command line and environment (parsed once): flags, the key, limits, trusted origins,
 * RPC URLs, and the payment rails' inputs (decision 0081: the manifest's x402 assets, native prices, expected
 * calls, a named rail).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import {
  DEFAULT_NETWORKS,
  NETWORK_NAME_PATTERN,
  parseDeploymentManifest,
  QUOTE_ASSETS,
} from "@tollgate/shared";
import { envDefault, envOptional } from "@tollgate/shared/env";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import type { AgentOptions } from "./options";
import { legacySplittersFromManifest } from "./pay-matic";
import { type PayOptions, RAIL_IDS, type RailId } from "./rails";
import { FileAgentStore } from "./store";
import { x402AssetsFromManifest } from "./x402-offers";

/** Where the CLI reads its environment and writes its output. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

/** The rails a caller may name (decisions 0081, 0087). */
const PAYABLE_RAILS = RAIL_IDS;

const ZPrivateKey = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key");
const ZUsd = z.string().regex(/^(0|[1-9]\d*)(\.\d{1,6})?$/, "must be a USD decimal string like 0.5");

/** Public RPC endpoints used when none is configured for a network. */
export const DEFAULT_RPC_URLS: Readonly<Record<number, string>> = {
  137: "https://polygon-rpc.com",
  8453: "https://mainnet.base.org",
  80002: "https://rpc-amoy.polygon.technology",
};

/** The CLI's environment, parsed once. */
export const ZCliEnv = z.object({
  TOLLGATE_AGENT_PRIVATE_KEY: envOptional(ZPrivateKey),
  TOLLGATE_AGENT_KEY_FILE: envOptional(z.string()),
  /** Comma-separated Tollgate API origins the agent trusts. */
  TOLLGATE_API_ORIGINS: envOptional(z.string()),
  /** Comma-separated `chainId=url` pairs, e.g. `137=https://...,80002=http://127.0.0.1:8547`. */
  TOLLGATE_RPC_URLS: envOptional(z.string()),
  /** State file (idempotency keys, receipts, spend ledger). */
  TOLLGATE_AGENT_STORE: envOptional(z.string()),
  /** Directory of the x402 batch-settlement channel records (default: `channels` beside the state file). */
  TOLLGATE_AGENT_CHANNEL_DIR: envOptional(z.string()),
  TOLLGATE_AGENT_MAX_USD: envDefault(ZUsd, "1"),
  TOLLGATE_AGENT_BUDGET_USD: envDefault(ZUsd, "10"),
  TOLLGATE_AGENT_BUDGET_PERIOD_HOURS: envDefault(z.coerce.number().positive(), 24),
  /** Deployment manifest: its ERC-3009 USD stablecoins are the assets x402 402s are paid in. */
  TOLLGATE_DEPLOYMENT_MANIFEST: envOptional(z.string()),
  /** Comma-separated `chainId=usd` native token prices, e.g. `137=0.25` (the legacy pay_matic rail). */
  TOLLGATE_NATIVE_USD_PRICES: envOptional(z.string()),
});
export type CliEnv = z.infer<typeof ZCliEnv>;

export const USAGE = `Usage: tollgate-agent pay <url> [options]
       tollgate-agent channels list [options]
       tollgate-agent channels close <channel-id> [--finalize] [options]
       tollgate-agent identity fetch <url> --solana-key-file <file>   (identity gate; docs/identity-gate.md)

Options:
  --method <m>          HTTP method (default GET, POST when --data is given)
  --data <body>         request body
  --header <k: v>       request header (repeatable)
  --max-usd <usd>       largest single payment (env TOLLGATE_AGENT_MAX_USD, default 1)
  --max-call-usd <usd>  largest price of one call (default none)
  --max-session-usd <usd> largest spend of one session: a channel's deposits, else this run (default none)
  --budget-usd <usd>    budget per period (env TOLLGATE_AGENT_BUDGET_USD, default 10 per 24 h)
  --network <name>      pay on this network (e.g. ${DEFAULT_NETWORKS.names().join(", ")}); the only one allowed
  --asset <asset>       pay in this asset (${QUOTE_ASSETS.join(", ")})
  --api-origin <url>    trusted Tollgate API origin (repeatable; env TOLLGATE_API_ORIGINS)
  --rpc <id=url>        RPC URL for a chain id (repeatable; env TOLLGATE_RPC_URLS)
  --key-file <path>     file holding the private key (else env TOLLGATE_AGENT_PRIVATE_KEY)
  --store <path>        state file (env TOLLGATE_AGENT_STORE, default .tollgate/agent-state.json)
  --channel-dir <path>  batch-settlement channel records (env TOLLGATE_AGENT_CHANNEL_DIR, default
                        channels/ beside the state file)
  --finalize            channels close: finalize a withdrawal whose delay has passed
  --manifest <path>     deployment manifest: x402 402s are paid in its USD stablecoins, pay_matic
                        through its v1.2 splitters (env TOLLGATE_DEPLOYMENT_MANIFEST; without it
                        neither is paid)
  --native-usd <id=usd> USD price of a chain's native token (repeatable; env TOLLGATE_NATIVE_USD_PRICES);
                        needed to pay the legacy bridge's pay_matic offer
  --expected-calls <n>  calls of this resource expected; picks the cheapest rail for them (default 1)
  --rail <rail>         pay on this rail only (${PAYABLE_RAILS.join(", ")})
  --json                print one JSON object instead of step lines
`;

export class UsageError extends Error {}

function parseRpcPairs(text: string | undefined, into: Map<number, string>): void {
  for (const pair of (text ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+)=(https?:\/\/.+)$/.exec(pair);
    if (!match) throw new UsageError(`bad RPC entry ${JSON.stringify(pair)}; expected chainId=http(s)://...`);
    into.set(Number(match[1]), match[2] as string);
  }
}

export function parseCommand(argv: string[], io: CliIo) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      method: { type: "string" },
      data: { type: "string" },
      header: { type: "string", multiple: true },
      "max-usd": { type: "string" },
      "budget-usd": { type: "string" },
      "max-call-usd": { type: "string" },
      "max-session-usd": { type: "string" },
      "channel-dir": { type: "string" },
      finalize: { type: "boolean", default: false },
      network: { type: "string" },
      asset: { type: "string" },
      "api-origin": { type: "string", multiple: true },
      rpc: { type: "string", multiple: true },
      "key-file": { type: "string" },
      store: { type: "string" },
      manifest: { type: "string" },
      "native-usd": { type: "string", multiple: true },
      "expected-calls": { type: "string" },
      rail: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, target, ...rest] = positionals;
  const channels = command === "channels" ? channelCommandOf(target, rest, values.finalize) : undefined;
  const url = target ?? "";
  if (!channels) {
    if (command !== "pay" || !target || rest.length > 0) throw new UsageError("expected: pay <url>");
    if (!/^https?:\/\//.test(url)) throw new UsageError(`not an http(s) URL: ${url}`);
  }

  const envParsed = ZCliEnv.safeParse(io.env);
  if (!envParsed.success) {
    throw new UsageError(
      `invalid environment: ${envParsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const env = envParsed.data;

  const key = privateKeyOf(values["key-file"], env);

  const maxUsd = ZUsd.safeParse(values["max-usd"] ?? env.TOLLGATE_AGENT_MAX_USD);
  const budgetUsd = ZUsd.safeParse(values["budget-usd"] ?? env.TOLLGATE_AGENT_BUDGET_USD);
  if (!maxUsd.success) throw new UsageError("--max-usd must be a USD decimal like 0.5");
  if (!budgetUsd.success) throw new UsageError("--budget-usd must be a USD decimal like 10");
  const network = values.network;
  // Any network the service lists may be named (decision 0057); the name must at least be one.
  if (network !== undefined && !NETWORK_NAME_PATTERN.test(network)) {
    throw new UsageError(`--network must be a network name such as ${DEFAULT_NETWORKS.names().join(", ")}`);
  }
  const asset = values.asset;
  if (asset !== undefined && !(QUOTE_ASSETS as readonly string[]).includes(asset)) {
    throw new UsageError(`--asset must be one of ${QUOTE_ASSETS.join(", ")}`);
  }
  // Closing a channel pays nothing new: it needs no trusted origin.
  const origins = channels ? [] : trustedOriginsOf(env.TOLLGATE_API_ORIGINS, values["api-origin"]);
  const maxCall = optionalUsd(values["max-call-usd"], "--max-call-usd");
  const maxSession = optionalUsd(values["max-session-usd"], "--max-session-usd");
  const storePath = values.store ?? env.TOLLGATE_AGENT_STORE ?? join(io.cwd, ".tollgate", "agent-state.json");
  const rpcs = new Map<number, string>(
    Object.entries(DEFAULT_RPC_URLS).map(([id, rpc]) => [Number(id), rpc]),
  );
  parseRpcPairs(env.TOLLGATE_RPC_URLS, rpcs);
  parseRpcPairs((values.rpc ?? []).join(","), rpcs);

  const requestInit = requestInitOf(values.header, values.method, values.data);
  const allowedNetworks = network ? [network] : undefined;
  return {
    url,
    channels,
    json: values.json,
    requestInit,
    pay: payOptionsOf(values["expected-calls"], values.rail),
    agentOptions: {
      ...paymentAssetsOf(values.manifest ?? env.TOLLGATE_DEPLOYMENT_MANIFEST, [
        env.TOLLGATE_NATIVE_USD_PRICES,
        ...(values["native-usd"] ?? []),
      ]),
      account: privateKeyToAccount(key),
      chains: Object.fromEntries([...rpcs].map(([id, rpcUrl]) => [id, { rpcUrl }])),
      limits: {
        maxPerPaymentUsd: maxUsd.data,
        budgetPerPeriod: {
          usd: budgetUsd.data,
          periodMs: env.TOLLGATE_AGENT_BUDGET_PERIOD_HOURS * 3_600_000,
        },
        allowedOrigins: origins,
        ...(allowedNetworks ? { allowedNetworks } : {}),
        ...(maxCall ? { maxPerCallUsd: maxCall } : {}),
        ...(maxSession ? { maxPerSessionUsd: maxSession } : {}),
      },
      store: new FileAgentStore(storePath),
      channelDir:
        values["channel-dir"] ?? env.TOLLGATE_AGENT_CHANNEL_DIR ?? join(dirname(storePath), "channels"),
      preferences: {
        ...(network ? { network } : {}),
        ...(asset ? { asset: asset as (typeof QUOTE_ASSETS)[number] } : {}),
      },
      timing: {
        pollingIntervalMs: network && DEFAULT_NETWORKS.get(network)?.mode === "test" ? 500 : 1_000,
      },
    },
  };
}

/** `channels list` or `channels close <id> [--finalize]`. */
function channelCommandOf(
  sub: string | undefined,
  rest: string[],
  finalize: boolean | undefined,
): { action: "list" } | { action: "close"; channelId: string; finalize: boolean } {
  if (sub === "list" && rest.length === 0) return { action: "list" };
  const [channelId, ...extra] = rest;
  if (sub === "close" && channelId && extra.length === 0) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(channelId)) throw new UsageError(`not a channel id: ${channelId}`);
    return { action: "close", channelId, finalize: finalize ?? false };
  }
  throw new UsageError("expected: channels list | channels close <channel-id> [--finalize]");
}

function optionalUsd(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (!ZUsd.safeParse(value).success) throw new UsageError(`${flag} must be a USD decimal like 0.5`);
  return value;
}

function payOptionsOf(expectedCalls: string | undefined, rail: string | undefined): PayOptions {
  if (expectedCalls !== undefined && !/^[1-9]\d{0,8}$/.test(expectedCalls))
    throw new UsageError("--expected-calls must be a positive integer");
  if (rail !== undefined && !(PAYABLE_RAILS as readonly string[]).includes(rail))
    throw new UsageError(`--rail must be one of ${PAYABLE_RAILS.join(", ")}`);
  return {
    ...(expectedCalls ? { expectedCalls: Number(expectedCalls) } : {}),
    ...(rail ? { rail: rail as RailId } : {}),
  };
}

/** x402 assets from a deployment manifest and native USD prices from `id=usd` pairs. */
function paymentAssetsOf(
  manifestPath: string | undefined,
  priceLists: ReadonlyArray<string | undefined>,
): Pick<AgentOptions, "x402Assets" | "nativeUsdPrices" | "legacySplitters"> {
  let x402Assets: AgentOptions["x402Assets"];
  let legacySplitters: AgentOptions["legacySplitters"];
  if (manifestPath) {
    try {
      const manifest = parseDeploymentManifest(JSON.parse(readFileSync(manifestPath, "utf8")));
      x402Assets = x402AssetsFromManifest(manifest);
      legacySplitters = legacySplittersFromManifest(manifest);
    } catch (error) {
      throw new UsageError(`deployment manifest ${manifestPath}: ${(error as Error).message}`);
    }
  }
  const nativeUsdPrices: Record<number, string> = {};
  for (const pair of priceLists
    .flatMap((list) => (list ?? "").split(","))
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+)=(.+)$/.exec(pair);
    if (!match || !ZUsd.safeParse(match[2]).success)
      throw new UsageError(`bad native price ${JSON.stringify(pair)}; expected chainId=usd like 137=0.25`);
    nativeUsdPrices[Number(match[1])] = match[2] as string;
  }
  return {
    ...(x402Assets ? { x402Assets } : {}),
    ...(legacySplitters ? { legacySplitters } : {}),
    ...(Object.keys(nativeUsdPrices).length > 0 ? { nativeUsdPrices } : {}),
  };
}

/** The payer's key: `--key-file` wins, then TOLLGATE_AGENT_PRIVATE_KEY, then TOLLGATE_AGENT_KEY_FILE. */
function privateKeyOf(keyFileFlag: string | undefined, env: CliEnv): `0x${string}` {
  const keyFile = keyFileFlag ?? env.TOLLGATE_AGENT_KEY_FILE;
  let keyText = env.TOLLGATE_AGENT_PRIVATE_KEY;
  if (keyFileFlag || !keyText) {
    if (!keyFile) throw new UsageError("no key: set TOLLGATE_AGENT_PRIVATE_KEY or pass --key-file");
    keyText = readFileSync(keyFile, "utf8");
  }
  const key = ZPrivateKey.safeParse(keyText);
  if (!key.success) throw new UsageError(`private key ${key.error.issues[0]?.message ?? "invalid"}`);
  return key.data as `0x${string}`;
}

/** The trusted Tollgate API origins (env, then flags); at least one, each a URL. */
function trustedOriginsOf(fromEnv: string | undefined, fromFlags: string[] | undefined): string[] {
  const origins = [
    ...(fromEnv ?? "")
      .split(",")
      .map((o) => o.trim())
      .filter(Boolean),
    ...(fromFlags ?? []),
  ];
  if (origins.length === 0)
    throw new UsageError("no trusted Tollgate API origin: pass --api-origin or set TOLLGATE_API_ORIGINS");
  for (const origin of origins) {
    try {
      new URL(origin);
    } catch {
      throw new UsageError(`bad origin ${origin}`);
    }
  }
  return origins;
}

/** The request to send: `--header name: value` pairs, `--method`, and `--data` as a JSON body by default. */
function requestInitOf(
  headerFlags: string[] | undefined,
  methodFlag: string | undefined,
  data: string | undefined,
): RequestInit & { method: string } {
  const headers = new Headers();
  for (const header of headerFlags ?? []) {
    const index = header.indexOf(":");
    if (index <= 0) throw new UsageError(`bad header ${JSON.stringify(header)}; expected "name: value"`);
    headers.append(header.slice(0, index).trim(), header.slice(index + 1).trim());
  }
  const method = (methodFlag ?? (data !== undefined ? "POST" : "GET")).toUpperCase();
  if (data !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const requestInit: RequestInit & { method: string } = {
    method,
    headers,
    ...(data !== undefined ? { body: data } : {}),
  };
  return requestInit;
}
