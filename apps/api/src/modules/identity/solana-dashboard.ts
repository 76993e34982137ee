import { z } from "zod";
import { adminProcedure } from "../operators";
import type { IdentityModuleDeps } from "./deps";
import { ZSolanaDashboard } from "./solana-dashboard.types";

const startedAt = new Date().toISOString();

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** GET /api/dashboard/solana (SPEC §4.3): seat-check RPC health and the identity gate's counts. */
export const solanaDashboardProcedure = (deps: IdentityModuleDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/api/dashboard/solana",
        tags: ["operators"],
        summary: "Solana seat-check RPC health and identity-gate counts",
        errorResponses: [401],
      },
    })
    .input(z.void())
    .output(ZSolanaDashboard)
    .query(async () => {
      const identity = deps.identity;
      const health = await identity.solana.health();
      const counts = identity.gate.counts;
      const stats = identity.gate.seats.stats;
      return {
        rpc: {
          configured: identity.rpcUrl !== "",
          origin: identity.rpcUrl ? originOf(identity.rpcUrl) : null,
          healthy: health.ok,
          slot: health.slot ?? null,
          error: health.ok ? null : "Solana RPC unreachable or unconfigured",
        },
        seat_checks: {
          rpc_calls: stats.rpcCalls,
          rpc_failures: stats.rpcFailures,
          cache_hits: stats.cacheHits,
        },
        gate: {
          nonce_store: identity.gate.store.kind,
          nonces_issued: counts.noncesIssued,
          verified: counts.verified,
          refused_malformed: counts.refusedMalformed,
          refused_signature: counts.refusedSignature,
          refused_nonce: counts.refusedNonce,
          refused_seat: counts.refusedSeat,
        },
        counted_since: startedAt,
      };
    });
