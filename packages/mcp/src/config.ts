/**
 * The MCP server's configuration (docs/mcp.md): command-line flags and the environment, parsed once
 * with zod at start. Keys come from a key file or the environment, never from a tool argument. A key that cannot
 * be used does not stop the server: the tools that need it answer a tool error naming the problem, so an MCP
 * client shows the reason instead of a dead server. Anything else that is wrong is a {@link ConfigError}.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { identityFromKeypairJson, type SolanaIdentity } from "@tollgate/agent";
import { type EvmNetworkName, QUOTE_ASSETS, type QuoteAsset, ZNetworkName } from "@tollgate/shared";
import { envDefault, envOptional } from "@tollgate/shared/env";
import type { LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";

/** Bad flags or environment: printed as one message, exit code 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const ZPrivateKey = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key");
const ZUsd = z.string().regex(/^(0|[1-9]\d*)(\.\d{1,6})?$/, "must be a USD decimal string like 0.5");
const ZOriginList = z
  .string()
  .transform((text) =>
    text
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.url({ protocol: /^https?$/ })));

/** Public RPC endpoints used when none is configured for a chain (those of the agent CLI). */
const DEFAULT_RPC_URLS: Readonly<Record<number, string>> = {
  137: "https://polygon-rpc.com",
  8453: "https://mainnet.base.org",
  80002: "https://rpc-amoy.polygon.technology",
};

export const ZMcpEnv = z.object({
  TOLLGATE_AGENT_PRIVATE_KEY: envOptional(z.string()).describe(
    "The agent's EVM private key (0x + 64 hex). Prefer TOLLGATE_AGENT_KEY_FILE.",
  ),
  TOLLGATE_AGENT_KEY_FILE: envOptional(z.string()).describe("File holding the agent's EVM private key."),
  /** Tollgate API origins the agent trusts (comma list); the first is the API the other tools talk to. */
  TOLLGATE_API_ORIGINS: envOptional(ZOriginList).describe(
    "Comma list of Tollgate API origins the agent trusts; the first is the API the other tools talk to.",
  ),
  /** The API for find_apis and the operator tools; default the first trusted origin. */
  TOLLGATE_API_URL: envOptional(z.url({ protocol: /^https?$/ })).describe(
    "API for find_apis and the operator tools. Default the first trusted origin.",
  ),
  /** `chainId=url` pairs, comma-separated. */
  TOLLGATE_RPC_URLS: envOptional(z.string()).describe(
    "`chainId=url` pairs, comma-separated. Default public RPCs.",
  ),
  TOLLGATE_AGENT_STORE: envOptional(z.string()).describe(
    "File where the agent client keeps its budget and receipts.",
  ),
  TOLLGATE_AGENT_NETWORK: envOptional(ZNetworkName).describe("Network the agent prefers to pay on."),
  TOLLGATE_AGENT_ASSET: envOptional(z.enum(QUOTE_ASSETS)).describe("Asset the agent prefers to pay with."),
  /** Largest single payment (the agent client's cap). */
  TOLLGATE_AGENT_MAX_USD: envDefault(ZUsd, "1").describe("Largest single payment (USD decimal)."),
  /** Rolling budget of the agent client, kept in its store across restarts. */
  TOLLGATE_AGENT_BUDGET_USD: envDefault(ZUsd, "10").describe(
    "Rolling budget of the agent client (USD decimal), kept across restarts.",
  ),
  TOLLGATE_AGENT_BUDGET_PERIOD_HOURS: envDefault(z.coerce.number().positive(), 24).describe(
    "Length of the rolling budget's period.",
  ),
  /** What one tool call may spend in total (a call can buy more than once). */
  TOLLGATE_MCP_MAX_USD_PER_CALL: envDefault(ZUsd, "1").describe(
    "What one tool call may spend in total (USD decimal).",
  ),
  /** What one MCP session (a stdio process, an HTTP session) may spend in total. */
  TOLLGATE_MCP_SESSION_BUDGET_USD: envDefault(ZUsd, "5").describe(
    "What one MCP session may spend in total (USD decimal).",
  ),
  /** The deployment manifest (`DATA_DIR/deployments.json` locally): token addresses for `balance`. */
  TOLLGATE_DEPLOYMENT_MANIFEST: envOptional(z.string()).describe(
    "Deployment manifest for token addresses in `balance`.",
  ),
  /** USD prices of native tokens (`137=0.25,...`): the legacy bridge's pay_matic rail is paid only with one. */
  TOLLGATE_NATIVE_USD_PRICES: envOptional(z.string()).describe(
    "USD price of each chain's native token as chainId=usd pairs (e.g. 137=0.25); the legacy bridge's pay_matic offer is paid only on a chain listed here.",
  ),
  /** A Solana keypair file (JSON array of 64 bytes) for identity_fetch. */
  TOLLGATE_SOLANA_KEY_FILE: envOptional(z.string()).describe(
    "Solana keypair file (JSON array of 64 bytes) for identity_fetch.",
  ),
  /** An operator bearer session (`ases_...`, from POST /api/admin/login with session "bearer"). */
  TOLLGATE_ADMIN_TOKEN: envOptional(
    z.string().regex(/^ases_[A-Za-z0-9_-]+$/, "must be an ases_ session token"),
  ).describe("Operator bearer session (`ases_...`) for the operator tools."),
  /** Bearer token every Streamable HTTP request must carry; required with --http. */
  TOLLGATE_MCP_HTTP_TOKEN: envOptional(z.string().min(24, "at least 24 characters")).describe(
    "Bearer token every Streamable HTTP request must carry (24 characters or more); required with --http.",
  ),
});

/** A key that was configured but cannot be used, or none: the reason the key's tools give. */
export type Loaded<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface McpConfig {
  transport: { kind: "stdio" } | { kind: "http"; host: string; port: number; token: string };
  allowActions: boolean;
  apiUrl: string | undefined;
  apiOrigins: string[];
  account: Loaded<LocalAccount>;
  identity: Loaded<SolanaIdentity>;
  adminToken: string | undefined;
  rpcUrls: Map<number, string>;
  storePath: string;
  network: EvmNetworkName | undefined;
  asset: QuoteAsset | undefined;
  limits: {
    maxPerPaymentUsd: string;
    budgetUsd: string;
    budgetPeriodMs: number;
    maxPerCallUsd: string;
    sessionBudgetUsd: string;
  };
  manifestPath: string | undefined;
  /** USD per whole native token, by chain id (decision 0081: the pay_matic rail). */
  nativeUsdPrices: Record<number, string>;
}

export const USAGE = `Usage: tollgate-mcp --stdio [--allow-actions]
       tollgate-mcp --http [--port 3333] [--host 127.0.0.1] [--allow-actions]

Environment: TOLLGATE_AGENT_KEY_FILE or TOLLGATE_AGENT_PRIVATE_KEY, TOLLGATE_API_ORIGINS, TOLLGATE_RPC_URLS,
TOLLGATE_MCP_MAX_USD_PER_CALL, TOLLGATE_MCP_SESSION_BUDGET_USD, TOLLGATE_AGENT_MAX_USD, TOLLGATE_AGENT_BUDGET_USD,
TOLLGATE_NATIVE_USD_PRICES, TOLLGATE_SOLANA_KEY_FILE, TOLLGATE_ADMIN_TOKEN, TOLLGATE_MCP_HTTP_TOKEN (required with --http). See docs/mcp.md.
`;

function loadAccount(env: z.infer<typeof ZMcpEnv>): Loaded<LocalAccount> {
  let text = env.TOLLGATE_AGENT_PRIVATE_KEY;
  let source = "TOLLGATE_AGENT_PRIVATE_KEY";
  if (env.TOLLGATE_AGENT_KEY_FILE) {
    source = `key file ${env.TOLLGATE_AGENT_KEY_FILE}`;
    try {
      text = readFileSync(env.TOLLGATE_AGENT_KEY_FILE, "utf8");
    } catch (error) {
      return { ok: false, reason: `${source} cannot be read (${(error as NodeJS.ErrnoException).code})` };
    }
  }
  if (text === undefined)
    return { ok: false, reason: "no agent key: set TOLLGATE_AGENT_KEY_FILE or TOLLGATE_AGENT_PRIVATE_KEY" };
  const key = ZPrivateKey.safeParse(text);
  if (!key.success) return { ok: false, reason: `${source}: ${key.error.issues[0]?.message ?? "invalid"}` };
  return { ok: true, value: privateKeyToAccount(key.data as `0x${string}`) };
}

function loadIdentity(path: string | undefined): Loaded<SolanaIdentity> {
  if (!path) return { ok: false, reason: "no identity key: set TOLLGATE_SOLANA_KEY_FILE" };
  try {
    return { ok: true, value: identityFromKeypairJson(readFileSync(path, "utf8")) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: `Solana key file ${path}: ${code ? `cannot be read (${code})` : (error as Error).message}`,
    };
  }
}

function rpcUrlsOf(text: string | undefined): Map<number, string> {
  const urls = new Map(Object.entries(DEFAULT_RPC_URLS).map(([id, url]) => [Number(id), url]));
  for (const pair of (text ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+)=(https?:\/\/.+)$/.exec(pair);
    if (!match)
      throw new ConfigError(`TOLLGATE_RPC_URLS: bad entry ${JSON.stringify(pair)}; expected chainId=url`);
    urls.set(Number(match[1]), match[2] as string);
  }
  return urls;
}

/** Parses flags and environment once; throws ConfigError. `--help` gives `undefined`. */
export function loadConfig(
  argv: string[],
  source: Readonly<Record<string, string | undefined>>,
  cwd: string,
): McpConfig | undefined {
  let values: ReturnType<typeof parseFlags>;
  try {
    values = parseFlags(argv);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (values.help) return undefined;
  if (values.stdio === values.http) throw new ConfigError("choose one transport: --stdio or --http");
  const parsed = ZMcpEnv.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(
      `invalid environment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const env = parsed.data;
  let transport: McpConfig["transport"] = { kind: "stdio" };
  if (values.http) {
    const port = Number(values.port ?? "3333");
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ConfigError("--port must be 0-65535");
    if (!env.TOLLGATE_MCP_HTTP_TOKEN)
      throw new ConfigError("--http needs TOLLGATE_MCP_HTTP_TOKEN (the bearer token clients must send)");
    transport = { kind: "http", host: values.host ?? "127.0.0.1", port, token: env.TOLLGATE_MCP_HTTP_TOKEN };
  }
  const apiOrigins = (env.TOLLGATE_API_ORIGINS ?? []).map((origin) => new URL(origin).origin);
  return {
    transport,
    allowActions: values["allow-actions"] ?? false,
    apiUrl: (env.TOLLGATE_API_URL ?? apiOrigins[0])?.replace(/\/+$/, ""),
    apiOrigins,
    account: loadAccount(env),
    identity: loadIdentity(env.TOLLGATE_SOLANA_KEY_FILE),
    adminToken: env.TOLLGATE_ADMIN_TOKEN,
    rpcUrls: rpcUrlsOf(env.TOLLGATE_RPC_URLS),
    storePath: env.TOLLGATE_AGENT_STORE ?? join(cwd, ".tollgate", "mcp-agent-state.json"),
    network: env.TOLLGATE_AGENT_NETWORK,
    asset: env.TOLLGATE_AGENT_ASSET,
    limits: {
      maxPerPaymentUsd: env.TOLLGATE_AGENT_MAX_USD,
      budgetUsd: env.TOLLGATE_AGENT_BUDGET_USD,
      budgetPeriodMs: env.TOLLGATE_AGENT_BUDGET_PERIOD_HOURS * 3_600_000,
      maxPerCallUsd: env.TOLLGATE_MCP_MAX_USD_PER_CALL,
      sessionBudgetUsd: env.TOLLGATE_MCP_SESSION_BUDGET_USD,
    },
    manifestPath: env.TOLLGATE_DEPLOYMENT_MANIFEST,
    nativeUsdPrices: nativePricesOf(env.TOLLGATE_NATIVE_USD_PRICES),
  };
}

function nativePricesOf(text: string | undefined): Record<number, string> {
  const prices: Record<number, string> = {};
  for (const pair of (text ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+)=(.+)$/.exec(pair);
    if (!match || !ZUsd.safeParse(match[2]).success)
      throw new ConfigError(
        `TOLLGATE_NATIVE_USD_PRICES: bad entry ${JSON.stringify(pair)}; expected chainId=usd`,
      );
    prices[Number(match[1])] = match[2] as string;
  }
  return prices;
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      stdio: { type: "boolean", default: false },
      http: { type: "boolean", default: false },
      port: { type: "string" },
      host: { type: "string" },
      "allow-actions": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  }).values;
}
