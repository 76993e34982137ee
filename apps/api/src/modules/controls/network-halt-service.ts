/**
 * Network halts: the indexer writes a `network_halts` row when a reorg is deeper than maxReorgDepth and
 * follows nothing on that network while the row is open (after restarts too). `/readyz` and the operator overview
 * list the open halts; only an operator clears one: `POST /api/admin/networks/{network}/resume {reason}` closes
 * the row (it stays as history) in the same transaction as its audit event. The follower re-reads the row,
 * re-anchors its cursor at the deepest common ancestor it can find among what it recorded, and follows again
 * (docs/decisions/0059-network-halts-resume-and-operations.md).
 */
import { type Database, networkHalts } from "@tollgate/db";
import { AppError, type EvmNetworkName, type NetworkList } from "@tollgate/shared";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import type { OperatorActor } from "../audit";
import { auditOperatorAction } from "../audit";

export interface HaltView {
  network: string;
  chain_id: number;
  reason: string;
  block_number: string | null;
  halted_at: string;
}

function view(row: typeof networkHalts.$inferSelect): HaltView {
  return {
    network: row.network,
    chain_id: row.chainId,
    reason: row.reason,
    block_number: row.blockNumber?.toString() ?? null,
    halted_at: row.haltedAt.toISOString(),
  };
}

/** Open halts, by network. */
export async function listOpenHalts(db: Database): Promise<HaltView[]> {
  const rows = await db
    .select()
    .from(networkHalts)
    .where(isNull(networkHalts.resumedAt))
    .orderBy(asc(networkHalts.network));
  return rows.map(view);
}

/** Closes the open halt of `network`; 409 `network_not_halted` when there is none. Audited. */
export async function resumeNetwork(
  deps: { db: { db: Database }; clock: Clock; chains?: { networks: NetworkList } | undefined },
  input: { network: EvmNetworkName; reason: string },
  actor: OperatorActor,
): Promise<{ resumed: HaltView; halted: HaltView[] }> {
  const now = deps.clock.now();
  const resumed = await deps.db.db.transaction(async (tx) => {
    const [row] = await tx
      .update(networkHalts)
      .set({ resumedAt: now, resumedBy: actor.adminId, resumeReason: input.reason })
      .where(and(eq(networkHalts.network, input.network), isNull(networkHalts.resumedAt)))
      .returning();
    if (!row) {
      // A name outside the runtime list is a bad request, not a network that happens to run (decision 0057).
      if (deps.chains && !deps.chains.networks.has(input.network)) {
        throw new AppError("validation_failed", `no network ${input.network} on this service`, {
          errors: [
            {
              path: "network",
              code: "invalid_value",
              message: `no network ${input.network} on this service`,
            },
          ],
        });
      }
      throw new AppError("network_not_halted", `${input.network} is not halted`);
    }
    const before = view(row);
    await auditOperatorAction(
      tx,
      actor,
      {
        action: "network.resumed",
        target: { type: "network", id: input.network },
        before: { ...before },
        details: { reason: input.reason },
      },
      now,
    );
    return before;
  });
  return { resumed, halted: await listOpenHalts(deps.db.db) };
}
