import { z } from "zod";

const count = z.number().int().nonnegative();

export const ZSolanaDashboard = z.object({
  rpc: z.object({
    configured: z.boolean(),
    /** Origin only: a provider key in the path or query never leaves the server. */
    origin: z.string().nullable(),
    healthy: z.boolean(),
    slot: z.number().int().nullable(),
    error: z.string().nullable(),
  }),
  seat_checks: z.object({ rpc_calls: count, rpc_failures: count, cache_hits: count }),
  gate: z.object({
    nonce_store: z.enum(["database", "redis", "memory"]),
    nonces_issued: count,
    verified: count,
    refused_malformed: count,
    refused_signature: count,
    refused_nonce: count,
    refused_seat: count,
  }),
  counted_since: z.string().describe("counts are this API process's since it started"),
});
export type SolanaDashboard = z.infer<typeof ZSolanaDashboard>;
