/**
 * Bridge configuration (SPEC §4.5; docs/bridge.md). Two sources, one shape:
 * - router mode: a JSON file listing providers (`BRIDGE_PROVIDERS_FILE`), served at `/<provider>/<path>`;
 * - single-provider mode: the environment variables of SPEC §4.5, served at `ROUTE_PATH`.
 * Both are parsed with zod once at start-up; a bad value stops the process with a message naming the variable.
 * Invariant: Solana is never offered (SPEC §1: settlement disabled), so there is no Solana field to configure.
 */
import { readFileSync } from "node:fs";
import { checkEvmAddress, type EvmNetworkName, ZNetworkName } from "@tollgate/shared";
import {
  type EnvSource,
  envBoolean,
  envDefault,
  envInteger,
  envIssueLines,
  envNodeEnv,
  envOptional,
  envPrivateKey,
  envRedisKeyPrefix,
  envUrl,
  parseEnv,
} from "@tollgate/shared/env";
import type { Address } from "viem";
import { z } from "zod";

export const AUTH_STYLES = ["bearer", "x-api-key", "header"] as const;
export type AuthStyle = (typeof AUTH_STYLES)[number];

/** Path segments the router serves itself; no provider may use them as its id. */
export const RESERVED_PROVIDER_IDS = new Set([".well-known", "facilitator", "api", "healthz"]);

export interface ProviderConfig {
  /** URL-safe id: the first path segment in router mode. */
  id: string;
  description: string;
  upstreamUrl: string;
  auth: { style: AuthStyle; header: string | undefined; apiKey: string | undefined };
  /** Atomic prices; an absent price means the rail is not offered. At least one is set. */
  prices: { wei: bigint | undefined; usdcUnits: bigint | undefined; usdtUnits: bigint | undefined };
  /** Single mode: the one path exposed and forwarded. Router mode: when set, only this sub-path is served. */
  routePath: string | undefined;
  requireBodyField: string | undefined;
  merchantWallet: Address;
  /** DESIGN §4: the v1.2 ip creator named in `pay_matic`; zero address when none. */
  ipCreator: Address | undefined;
  /** Another bridge's base URL to ping (registry views); absent for providers served here. */
  pingUrl: string | undefined;
  /** The network this provider sells on; absent: the bridge's `BRIDGE_NETWORK` (router mode only). */
  network: EvmNetworkName | undefined;
}

export interface BridgeConfig {
  mode: "router" | "single";
  network: EvmNetworkName;
  providers: ProviderConfig[];
  /** Public base URL of the bridge (absolute x402 `resource`); derived from the request when absent. */
  publicUrl: string | undefined;
  redisUrl: string | undefined;
  /** REDIS_KEY_PREFIX: bridge orders and claims are keyed `<prefix>bridge:` (decision 0059). */
  redisKeyPrefix: string;
  orderTtlSeconds: number;
  /** How long an order is kept after its TTL so a payment mined in time but confirmed late is honoured. */
  lateConfirmationGraceSeconds: number;
  challengesPerMinute: number;
  upstreamTimeoutMs: number;
  maxBodyBytes: number;
  /** Loopback upstreams (development and tests only). */
  allowLoopbackUpstreams: boolean;
  relayerPrivateKey: `0x${string}` | undefined;
  /** Upper bound on gas of one transferWithAuthorization. */
  settlementGasLimit: bigint;
  /** Legacy proofs must carry the payer's signature over the order; unsigned ones are refused. */
  requirePayerSignature: boolean;
  /** How often the API's pinger checks providers' `ping_url`; 0 turns it off. */
  pingIntervalMs: number;
}

export class BridgeConfigError extends Error {
  override readonly name = "BridgeConfigError";
}

const atomic = z
  .string()
  .regex(/^[0-9]{1,40}$/, "must be a positive integer of atomic units (decimal digits)")
  .transform((value) => BigInt(value))
  .refine((value) => value > 0n, "must be greater than zero");
const evmAddress = z.string().transform((value, ctx): Address => {
  const result = checkEvmAddress(value);
  if (result.ok) return result.address;
  ctx.addIssue({ code: "custom", message: result.message });
  return z.NEVER;
});
const httpUrl = envUrl({ protocol: /^https?$/, error: "must be an http(s) URL" });
const routePath = z
  .string()
  .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/, "must start with / and contain only URL path characters");
const headerName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "must be an HTTP header name");

const ProviderSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "must be lower-case letters, digits and dashes")
      .refine((id) => !RESERVED_PROVIDER_IDS.has(id), "is reserved"),
    description: z.string().max(200).optional(),
    upstream_url: httpUrl,
    auth_style: z.enum(AUTH_STYLES).default("bearer"),
    auth_header: headerName.optional(),
    api_key: z.string().min(1).optional(),
    price_wei: atomic.optional(),
    price_usdc_units: atomic.optional(),
    price_usdt_units: atomic.optional(),
    route_path: routePath.optional(),
    require_body_field: z.string().min(1).max(100).optional(),
    merchant_wallet: evmAddress,
    ip_creator: evmAddress.optional(),
    ping_url: httpUrl.optional(),
    network: ZNetworkName.optional(),
  })
  .strict();

type RawProvider = z.infer<typeof ProviderSchema>;

function checkProvider(raw: RawProvider, ctx: z.RefinementCtx, names: Record<string, string>): void {
  if (
    raw.price_wei === undefined &&
    raw.price_usdc_units === undefined &&
    raw.price_usdt_units === undefined
  ) {
    ctx.addIssue({
      code: "custom",
      message: `set at least one of ${names.price_wei}, ${names.price_usdc_units}, ${names.price_usdt_units}`,
    });
  }
  if (raw.auth_style === "header" && !raw.auth_header) {
    ctx.addIssue({ code: "custom", message: `${names.auth_header} is required with auth style "header"` });
  }
}

function toProvider(raw: RawProvider): ProviderConfig {
  return {
    id: raw.id,
    description: raw.description ?? `Paid access to ${raw.id}`,
    upstreamUrl: raw.upstream_url.replace(/\/$/, ""),
    auth: { style: raw.auth_style, header: raw.auth_header, apiKey: raw.api_key },
    prices: { wei: raw.price_wei, usdcUnits: raw.price_usdc_units, usdtUnits: raw.price_usdt_units },
    routePath: raw.route_path,
    requireBodyField: raw.require_body_field,
    merchantWallet: raw.merchant_wallet,
    ipCreator: raw.ip_creator,
    pingUrl: raw.ping_url,
    network: raw.network,
  };
}

const FILE_NAMES: Record<string, string> = {
  price_wei: "price_wei",
  price_usdc_units: "price_usdc_units",
  price_usdt_units: "price_usdt_units",
  auth_header: "auth_header",
};
const ENV_NAMES: Record<string, string> = {
  price_wei: "PRICE_WEI",
  price_usdc_units: "PRICE_USDC_UNITS",
  price_usdt_units: "PRICE_USDT_UNITS",
  auth_header: "UPSTREAM_AUTH_HEADER",
};

const ProvidersFileSchema = z
  .object({ providers: z.array(ProviderSchema.superRefine((p, ctx) => checkProvider(p, ctx, FILE_NAMES))) })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    for (const provider of file.providers) {
      if (seen.has(provider.id))
        ctx.addIssue({ code: "custom", message: `duplicate provider id ${provider.id}` });
      seen.add(provider.id);
    }
  });

/** Settings shared by both modes (environment variables with BRIDGE_ prefixes, all optional). */
const CommonEnvSchema = z.object({
  BRIDGE_NETWORK: envDefault(ZNetworkName, "amoy"),
  BRIDGE_PUBLIC_URL: envOptional(httpUrl),
  REDIS_URL: envOptional(envUrl({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" })),
  REDIS_KEY_PREFIX: envRedisKeyPrefix(),
  BRIDGE_ORDER_TTL_SECONDS: envDefault(envInteger({ min: 30 }), 600),
  BRIDGE_LATE_CONFIRMATION_GRACE_SECONDS: envDefault(envInteger({ min: 0 }), 86_400),
  BRIDGE_CHALLENGES_PER_MINUTE: envDefault(envInteger({ min: 1 }), 120),
  BRIDGE_UPSTREAM_TIMEOUT_MS: envDefault(envInteger({ min: 100 }), 30_000),
  BRIDGE_MAX_BODY_BYTES: envDefault(envInteger({ min: 1024 }), 5 * 1024 * 1024),
  BRIDGE_SETTLEMENT_GAS_LIMIT: envDefault(envInteger({ min: 50_000 }), 200_000),
  BRIDGE_RELAYER_PRIVATE_KEY: envOptional(envPrivateKey()),
  /** Refuse legacy proofs without `x-payer-signature` (ends the transition period). */
  BRIDGE_REQUIRE_PAYER_SIGNATURE: envDefault(envBoolean(), false),
  BRIDGE_PING_INTERVAL_MS: envDefault(envInteger({ min: 0 }), 60_000),
  NODE_ENV: envNodeEnv(),
});

const SingleEnvSchema = z.object({
  UPSTREAM_URL: httpUrl,
  UPSTREAM_AUTH_STYLE: envDefault(z.enum(AUTH_STYLES), "bearer"),
  UPSTREAM_AUTH_HEADER: envOptional(headerName),
  UPSTREAM_API_KEY: envOptional(z.string()),
  PRICE_WEI: envOptional(atomic),
  PRICE_USDC_UNITS: envOptional(atomic),
  PRICE_USDT_UNITS: envOptional(atomic),
  ROUTE_PATH: envDefault(routePath, "/"),
  REQUIRE_BODY_FIELD: envOptional(z.string().max(100)),
  BRIDGE_MERCHANT_WALLET: evmAddress,
  BRIDGE_IP_CREATOR: envOptional(evmAddress),
  BRIDGE_PROVIDER_ID: envDefault(z.string(), "default"),
  BRIDGE_DESCRIPTION: envOptional(z.string().max(200)),
});

function formatIssues(prefix: string, error: z.ZodError): BridgeConfigError {
  return new BridgeConfigError(`${prefix}:\n${envIssueLines(error).join("\n")}`);
}

function common(source: EnvSource) {
  const raw = parseEnv(
    CommonEnvSchema,
    source,
    (message) => new BridgeConfigError(message),
    "Invalid bridge environment",
  );
  return {
    network: raw.BRIDGE_NETWORK,
    publicUrl: raw.BRIDGE_PUBLIC_URL?.replace(/\/$/, ""),
    redisUrl: raw.REDIS_URL,
    redisKeyPrefix: raw.REDIS_KEY_PREFIX,
    orderTtlSeconds: raw.BRIDGE_ORDER_TTL_SECONDS,
    lateConfirmationGraceSeconds: raw.BRIDGE_LATE_CONFIRMATION_GRACE_SECONDS,
    challengesPerMinute: raw.BRIDGE_CHALLENGES_PER_MINUTE,
    upstreamTimeoutMs: raw.BRIDGE_UPSTREAM_TIMEOUT_MS,
    maxBodyBytes: raw.BRIDGE_MAX_BODY_BYTES,
    settlementGasLimit: BigInt(raw.BRIDGE_SETTLEMENT_GAS_LIMIT),
    relayerPrivateKey: raw.BRIDGE_RELAYER_PRIVATE_KEY,
    requirePayerSignature: raw.BRIDGE_REQUIRE_PAYER_SIGNATURE,
    pingIntervalMs: raw.BRIDGE_PING_INTERVAL_MS,
    allowLoopbackUpstreams: raw.NODE_ENV !== "production",
  };
}

/** Single-provider mode: SPEC §4.5 variables (+ the optional BRIDGE_* settings). */
export function singleProviderConfigFromEnv(source: EnvSource): BridgeConfig {
  const shared = common(source);
  const parsed = SingleEnvSchema.safeParse(source);
  if (!parsed.success)
    throw formatIssues("Invalid single-provider bridge environment (SPEC §4.5)", parsed.error);
  const raw = parsed.data;
  const provider = ProviderSchema.superRefine((p, ctx) => checkProvider(p, ctx, ENV_NAMES)).safeParse({
    id: raw.BRIDGE_PROVIDER_ID,
    ...(raw.BRIDGE_DESCRIPTION ? { description: raw.BRIDGE_DESCRIPTION } : {}),
    upstream_url: raw.UPSTREAM_URL,
    auth_style: raw.UPSTREAM_AUTH_STYLE,
    ...(raw.UPSTREAM_AUTH_HEADER ? { auth_header: raw.UPSTREAM_AUTH_HEADER } : {}),
    ...(raw.UPSTREAM_API_KEY ? { api_key: raw.UPSTREAM_API_KEY } : {}),
    ...(raw.PRICE_WEI !== undefined ? { price_wei: String(raw.PRICE_WEI) } : {}),
    ...(raw.PRICE_USDC_UNITS !== undefined ? { price_usdc_units: String(raw.PRICE_USDC_UNITS) } : {}),
    ...(raw.PRICE_USDT_UNITS !== undefined ? { price_usdt_units: String(raw.PRICE_USDT_UNITS) } : {}),
    route_path: raw.ROUTE_PATH,
    ...(raw.REQUIRE_BODY_FIELD ? { require_body_field: raw.REQUIRE_BODY_FIELD } : {}),
    merchant_wallet: raw.BRIDGE_MERCHANT_WALLET,
    ...(raw.BRIDGE_IP_CREATOR ? { ip_creator: raw.BRIDGE_IP_CREATOR } : {}),
  });
  if (!provider.success)
    throw formatIssues("Invalid single-provider bridge environment (SPEC §4.5)", provider.error);
  return { ...shared, mode: "single", providers: [toProvider(provider.data)] };
}

/** Router mode: providers from a JSON file (`{"providers": [...]}`), settings from the environment. */
export function routerConfigFromFile(path: string, source: EnvSource): BridgeConfig {
  const shared = common(source);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new BridgeConfigError(`cannot read bridge providers file ${path}: ${(error as Error).message}`);
  }
  return { ...shared, mode: "router", providers: parseProviders(json, path) };
}

/** Validates a providers document (the file's content, or what the operator's store returns later). */
export function parseProviders(json: unknown, where = "providers"): ProviderConfig[] {
  const parsed = ProvidersFileSchema.safeParse(json);
  if (!parsed.success) throw formatIssues(`Invalid bridge providers in ${where}`, parsed.error);
  return parsed.data.providers.map(toProvider);
}

/** Validates one provider document (a stored row, an operator's write); issues as `{path, message}`. */
export function parseProvider(
  json: unknown,
): { ok: true; provider: ProviderConfig } | { ok: false; issues: { path: string; message: string }[] } {
  const parsed = ProviderSchema.superRefine((p, ctx) => checkProvider(p, ctx, FILE_NAMES)).safeParse(json);
  if (parsed.success) return { ok: true, provider: toProvider(parsed.data) };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.join(".") || "provider",
      message: issue.message,
    })),
  };
}

/** Router mode without a file: for tests and embedding. */
export function routerConfig(providers: unknown, source: EnvSource = {}): BridgeConfig {
  return { ...common(source), mode: "router", providers: parseProviders({ providers }) };
}
