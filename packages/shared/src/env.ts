/**
 * zod building blocks for every process's environment parser (DESIGN.md §11: each process parses its
 * environment once at start-up). Variables arrive as strings; an empty value counts as unset everywhere,
 * so `FOO=` behaves like no `FOO` at all. The parsers (apps/api, apps/indexer, the bridge, the example
 * merchant, the agent CLI) compose these and keep their own names, defaults and error classes.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { buildNetworkList, type DeploymentManifest, DeploymentManifestSchema } from "./deployment";
import { KNOWN_NETWORK_NAMES, type NetworkList, networkEnvSuffix } from "./networks";
import { fileProblem } from "./startup-check";

/** What an environment parser reads: `process.env` in an entry point, a plain record in tests. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

export const NODE_ENVS = ["development", "production", "test"] as const;
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** The one rule: an empty string is the same as an unset variable. */
export const emptyAsUnset = (value: unknown): unknown => (value === "" ? undefined : value);

/** Optional variable: unset or empty gives `undefined`. */
export function envOptional<T extends z.ZodType>(schema: T) {
  return z.preprocess(emptyAsUnset, schema.optional());
}

/** Variable with a default: unset or empty gives `fallback` (the parsed type, not a string). */
export function envDefault<T extends z.ZodType>(schema: T, fallback: z.util.NoUndefined<z.output<T>>) {
  return z.preprocess(emptyAsUnset, schema.default(fallback));
}

/** Required variable: unset or empty is an error naming the variable. */
export function envRequired<T extends z.ZodType>(schema: T) {
  return z.preprocess(emptyAsUnset, schema);
}

/** A decimal integer within bounds (`min` defaults to 0). */
export function envInteger(bounds: { min?: number; max?: number } = {}) {
  const base = z.coerce
    .number()
    .int()
    .min(bounds.min ?? 0);
  return bounds.max === undefined ? base : base.max(bounds.max);
}

/** `true`/`1` or `false`/`0`. */
export function envBoolean() {
  return z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");
}

/**
 * A URL whose scheme matches `protocol` (e.g. `/^https?$/`, `/^postgres(ql)?$/`); any scheme when omitted.
 * `error` replaces zod's message where a parser promises a specific one.
 */
export function envUrl(options: { protocol?: RegExp; error?: string } = {}) {
  return z.url({
    ...(options.protocol ? { protocol: options.protocol } : {}),
    ...(options.error ? { error: options.error } : {}),
  });
}

/** A secp256k1 private key as 0x + 64 hex digits. */
export function envPrivateKey(message = "must be 0x + 64 hex") {
  return z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, message)
    .transform((value) => value as `0x${string}`);
}

/** NODE_ENV: development unless told otherwise. */
export function envNodeEnv() {
  return envDefault(z.enum(NODE_ENVS), "development");
}

/** LOG_LEVEL: pino's levels, `info` by default. */
export function envLogLevel() {
  return envDefault(z.enum(LOG_LEVELS), "info");
}

/**
 * REDIS_KEY_PREFIX: the first part of every Redis key a process writes (limiters, nonces, quotas, bridge orders,
 * telemetry), so two deployments sharing one Redis never read each other's keys (decision 0059). Default `tollgate:`.
 */
export function envRedisKeyPrefix() {
  return envDefault(
    z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9:_.-]{0,63}$/, "letters, digits, ':', '_', '.' or '-', at most 64"),
    "tollgate:",
  ).describe(
    "First part of every Redis key this process writes (rate limits, sign-in limiter, identity nonces, quotas, bridge orders, telemetry). Deployments sharing one Redis use different prefixes; every replica of one deployment the same.",
  );
}

/** One line per failing variable, `  NAME: message`, for the parser's own error. */
export function envIssueLines(error: z.ZodError, pathPrefix = ""): string[] {
  return error.issues.map((issue) => {
    const path = [pathPrefix, ...issue.path.map(String)].filter(Boolean).join(".");
    return `  ${path || "(root)"}: ${issue.message}`;
  });
}

/**
 * Parses `source` with `schema`, or throws `makeError("<heading>:\n  NAME: message...")` naming every
 * failing variable at once.
 */
export function parseEnv<T extends z.ZodType>(
  schema: T,
  source: EnvSource,
  makeError: (message: string) => Error,
  heading = "Invalid environment",
): z.output<T> {
  const parsed = schema.safeParse(source);
  if (!parsed.success) throw makeError(`${heading}:\n${envIssueLines(parsed.error).join("\n")}`);
  return parsed.data;
}

/**
 * DATA_DIR and DEPLOYMENT_MANIFEST as every process lays them out: a relative path counts from the repository root,
 * the data directory is `.tollgate` unless set, and the manifest is `deployments.json` in it unless named.
 */
export function envDataPaths(
  repoRoot: string,
  raw: { DATA_DIR?: string | undefined; DEPLOYMENT_MANIFEST?: string | undefined },
): { fromRoot: (path: string) => string; dataDir: string; manifestPath: string } {
  const fromRoot = (path: string) => (isAbsolute(path) ? path : resolve(repoRoot, path));
  const dataDir = fromRoot(raw.DATA_DIR ?? ".tollgate");
  return {
    fromRoot,
    dataDir,
    manifestPath: fromRoot(raw.DEPLOYMENT_MANIFEST ?? join(dataDir, "deployments.json")),
  };
}

/**
 * The runtime network list of a process (decision 0057): the known networks plus the manifest at `manifestPath`
 * (absent file: the known networks alone). A manifest that does not parse stops the start with `makeError`.
 */
export function loadNetworkList(
  manifestPath: string,
  makeError: (message: string) => Error,
): { manifest: DeploymentManifest | undefined; networks: NetworkList } {
  if (!existsSync(manifestPath)) return { manifest: undefined, networks: buildNetworkList(undefined) };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(manifestPath, "utf8"));
  } catch (error) {
    // One line naming the variable and the path, like any other environment error (decision 0059).
    const problem = error instanceof SyntaxError ? `not JSON (${error.message})` : fileProblem(error);
    throw makeError(`DEPLOYMENT_MANIFEST: ${manifestPath}: ${problem}`);
  }
  const parsed = DeploymentManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw makeError(
      `Invalid deployment manifest ${manifestPath}:\n${envIssueLines(parsed.error).join("\n")}`,
    );
  }
  return { manifest: parsed.data, networks: buildNetworkList(parsed.data) };
}

type PerNetworkValues<S extends Record<string, z.ZodType>> = Record<
  string,
  { [K in keyof S]?: z.output<S[K]> }
>;

/**
 * Per-network variables `<PREFIX>_<NAME>` for every network of the list and every known one, the name upper-cased
 * with `-` as `_` (RPC_URL_BASE_SEPOLIA; decision 0057). `shape` extends a process's schema so one parse names
 * every bad variable; `assertNoUnknown` refuses a set variable with one of the prefixes that names no such network,
 * so a typo does not silently fall back to the manifest; `values` answers the parsed values by network name.
 */
export function perNetworkEnv<S extends Record<string, z.ZodType>>(networks: NetworkList, prefixes: S) {
  const names = [...new Set([...networks.names(), ...KNOWN_NETWORK_NAMES])];
  const key = (prefix: string, name: string) => `${prefix}_${networkEnvSuffix(name)}`;
  const shape: Record<string, z.ZodType> = {};
  for (const name of names) {
    for (const [prefix, schema] of Object.entries(prefixes)) shape[key(prefix, name)] = schema;
  }
  return {
    shape,
    assertNoUnknown(source: EnvSource, makeError: (message: string) => Error): void {
      const unknown = Object.keys(source).filter(
        (name) =>
          source[name] !== undefined &&
          source[name] !== "" &&
          !(name in shape) &&
          Object.keys(prefixes).some((prefix) => name.startsWith(`${prefix}_`)),
      );
      if (unknown.length > 0) {
        throw makeError(
          `Invalid environment:\n  ${unknown.join(", ")}: no such network (networks: ${names.join(", ")})`,
        );
      }
    },
    values(raw: Readonly<Record<string, unknown>>): PerNetworkValues<S> {
      const out: PerNetworkValues<S> = {};
      for (const name of names) {
        const values: Record<string, unknown> = {};
        for (const prefix of Object.keys(prefixes)) {
          const value = raw[key(prefix, name)];
          if (value !== undefined) values[prefix] = value;
        }
        out[name] = values as { [K in keyof S]?: z.output<S[K]> };
      }
      return out;
    },
  };
}

/** `perNetworkEnv` parsed on its own: for a process whose other variables are already parsed. */
export function parsePerNetworkEnv<S extends Record<string, z.ZodType>>(
  networks: NetworkList,
  prefixes: S,
  source: EnvSource,
  makeError: (message: string) => Error,
): PerNetworkValues<S> {
  const perNetwork = perNetworkEnv(networks, prefixes);
  perNetwork.assertNoUnknown(source, makeError);
  return perNetwork.values(
    parseEnv(z.object(perNetwork.shape), source, makeError) as Record<string, unknown>,
  );
}
