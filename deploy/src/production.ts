/**
 * What each long-running process needs in production, beyond what its environment schema says on its own
 * (docs/decisions/0062-containers-orchestration-and-configuration-reference.md). Two kinds:
 * - `refused`: the process refuses to start without it when NODE_ENV=production (its own parser says so;
 *   test/production.test.ts proves each entry against the real parsers, both ways);
 * - `replicas`: the process starts without it, but more than one replica of the service cannot work correctly
 *   without it (docs/operations.md "Running several replicas"); the compose file and the Kubernetes manifests
 *   must set it, with `value` when only one value is right.
 * The configuration reference (docs/configuration.md) prints these in its "Production" column.
 */
export type ServerProcess = "api" | "indexer";

export interface Requirement {
  kind: "refused" | "replicas";
  /** Only when another variable has this value (e.g. RECEIPT_KEYS_KEK with RECEIPT_KEYS_STORE=database). */
  when?: { name: string; value: string };
  /** The one right value for replicas. */
  value?: string;
  /** Why, for the reference: one short clause. */
  why: string;
}

export const PRODUCTION_REQUIREMENTS: Record<ServerProcess, Readonly<Record<string, Requirement>>> = {
  api: {
    WEBHOOK_SECRET_KEY: { kind: "refused", why: "seals merchants' webhook secrets; shared with the indexer" },
    RECEIPT_KEYS_KEK: {
      kind: "refused",
      when: { name: "RECEIPT_KEYS_STORE", value: "database" },
      why: "opens the receipt keys sealed in the database",
    },
    BASE_URL: { kind: "replicas", why: "the receipts' issuer: one value for every replica" },
    DATABASE_URL: { kind: "replicas", why: "one PostgreSQL for every replica (PGlite holds one process)" },
    RECEIPT_KEYS_STORE: {
      kind: "replicas",
      value: "database",
      why: "every replica signs with and publishes the same receipt keys",
    },
    REDIS_URL: { kind: "replicas", why: "rate limits, quotas, nonces and bridge claims shared by replicas" },
    QUOTE_SIGNER_PRIVATE_KEY: {
      kind: "replicas",
      why: "v1.4 quotes are signed by the address holding SIGNER_ROLE",
    },
    DEPLOYMENT_MANIFEST: { kind: "replicas", why: "the same networks and contracts everywhere" },
  },
  indexer: {
    DATABASE_URL: { kind: "refused", why: "the followers' advisory locks and the settlements live there" },
    WEBHOOK_SECRET_KEY: { kind: "refused", why: "opens merchants' webhook secrets; the API's key" },
    DEPLOYMENT_MANIFEST: { kind: "replicas", why: "the same networks and contracts as the API" },
  },
};

/** The reference's "Production" cell for a variable of a process. */
export function productionCell(process: ServerProcess | "mcp", name: string): string {
  if (process === "mcp") return "";
  const requirement = PRODUCTION_REQUIREMENTS[process][name];
  if (!requirement) return "";
  if (requirement.kind === "refused") {
    return requirement.when ? `required with ${requirement.when.name}=${requirement.when.value}` : "required";
  }
  return requirement.value ? `replicas: \`${requirement.value}\`` : "replicas";
}
