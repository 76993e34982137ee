/** The `/readyz` answer (docs/operations.md "Readiness"): one entry per part, each with a status and, unless ok, a reason. */
import { z } from "zod";

const ZPartStatus = z
  .enum(["ok", "degraded", "down"])
  .describe("`down` on a required part makes the answer 503");
const ZPart = z.object({
  status: ZPartStatus,
  reason: z.string().optional().describe("Why the part is not ok; absent when it is"),
});
const ZCheck = z.object({
  status: z.enum(["ok", "skipped", "failed"]),
  reason: z.string().optional(),
});

export const ZNetworkReadiness = ZPart.extend({
  chain_id: z.number().int().describe("The manifest's chain id"),
  rpc: z.string().describe("Scheme, host and port of the RPC (path and query may hold a key)"),
  checked_at: z.iso.datetime().describe("When the last periodic check finished"),
  head_age_seconds: z
    .number()
    .int()
    .nullable()
    .describe("Age of the head block at that check; null: not read"),
  halted: z
    .boolean()
    .describe(
      "true while the indexer halted the network (a reorg deeper than maxReorgDepth): it records no settlement there until an operator resumes it",
    ),
  checks: z.object({
    rpc: ZCheck,
    chain_id: ZCheck,
    code: ZCheck,
    signer_role: ZCheck,
    head: ZCheck,
  }),
});

export const ZReadyz = z.object({
  status: z
    .enum(["ready", "degraded", "not_ready"])
    .describe("`not_ready` (503): a required part is down; `degraded` (200): Redis down or a network halted"),
  database: ZPart.extend({ kind: z.enum(["pglite", "postgres"]) }),
  redis: ZPart.optional().describe(
    "Present when REDIS_URL is set; not required (limiters fall back to memory)",
  ),
  receipt_key: ZPart.extend({ kid: z.string().optional().describe("The active signing key") }),
  quote_signer: ZPart.extend({ address: z.string().optional().describe("The v1.4 quote signer") }),
  networks: z.record(z.string(), ZNetworkReadiness).describe("Every configured network, keyed by name"),
  indexer: ZPart.extend({
    halted_networks: z.array(z.string()).describe("Networks the indexer halted after a too-deep reorg"),
  }),
});

export type Readyz = z.infer<typeof ZReadyz>;
export type NetworkReadiness = z.infer<typeof ZNetworkReadiness>;
