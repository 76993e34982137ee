/**
 * What a deployment gives each process, checked against the processes' own parsers
 * (docs/decisions/0062-containers-orchestration-and-configuration-reference.md): every variable set is one the
 * process's zod schema knows, the real parser accepts the whole environment as production, and every production
 * requirement (./production.ts) is met.
 */
import { loadEnv, ZPerNetworkEnv, ZRawEnv } from "@tollgate/api";
import { loadIndexerEnv, ZIndexerEnv, ZIndexerPerNetworkEnv } from "@tollgate/indexer";
import { KNOWN_NETWORK_NAMES, networkEnvSuffix } from "@tollgate/shared/networks";
import { PRODUCTION_REQUIREMENTS, type ServerProcess } from "./production";

const SCHEMAS: Record<ServerProcess, { names: Set<string>; perNetwork: string[] }> = {
  api: { names: new Set(Object.keys(ZRawEnv.shape)), perNetwork: Object.keys(ZPerNetworkEnv) },
  indexer: { names: new Set(Object.keys(ZIndexerEnv.shape)), perNetwork: Object.keys(ZIndexerPerNetworkEnv) },
};

/** Whether the process's schema reads this variable (per-network ones for the built-in networks). */
export function knownTo(process: ServerProcess, name: string): boolean {
  const schema = SCHEMAS[process];
  if (schema.names.has(name)) return true;
  return schema.perNetwork.some((prefix) =>
    KNOWN_NETWORK_NAMES.some((network) => name === `${prefix}_${networkEnvSuffix(network)}`),
  );
}

/** Runs the process's own environment parser on `env`; its error message, or undefined when it accepts. */
export function parserRefusal(
  process: ServerProcess,
  env: Readonly<Record<string, string>>,
): string | undefined {
  try {
    if (process === "api") loadEnv(env);
    else loadIndexerEnv(env);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Production requirements the environment does not meet, one line each. */
export function unmetRequirements(process: ServerProcess, env: Readonly<Record<string, string>>): string[] {
  const unmet: string[] = [];
  for (const [name, requirement] of Object.entries(PRODUCTION_REQUIREMENTS[process])) {
    if (requirement.when && env[requirement.when.name] !== requirement.when.value) continue;
    const value = env[name];
    if (value === undefined || value === "") unmet.push(`${name} is not set (${requirement.why})`);
    else if (requirement.value !== undefined && value !== requirement.value) {
      unmet.push(`${name} is ${value}, replicas need ${requirement.value} (${requirement.why})`);
    }
  }
  return unmet;
}

/**
 * Everything wrong with what a deployment sets for a process: `explicit` is what the compose service or the
 * container sets itself, `env` the whole environment the process sees (the image's ENV included).
 */
export function processEnvProblems(
  process: ServerProcess,
  explicit: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string>>,
): string[] {
  const problems = Object.keys(explicit)
    .filter((name) => !knownTo(process, name))
    .map((name) => `${name} is not a variable the ${process} reads`);
  if (env.NODE_ENV !== "production") problems.push("NODE_ENV is not production");
  const refusal = parserRefusal(process, env);
  if (refusal) problems.push(`the ${process} refuses this environment: ${refusal}`);
  problems.push(...unmetRequirements(process, env));
  return problems;
}
