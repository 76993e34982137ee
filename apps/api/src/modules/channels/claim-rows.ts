/**
 * The claim rows of the x402 `batch-settlement` worker (docs/decisions/0082): planning a batch (the claim row and
 * the channels' `claim_id` in one transaction, before anything is sent) and ending one (freeing its channels,
 * raising their claimed totals on confirmation). The invariants are ./claim-batcher.ts's.
 */
import { createHash } from "node:crypto";
import {
  type ClaimEntry,
  type ClaimState,
  channelClaims,
  type Database,
  paymentChannels,
} from "@tollgate/db";
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Clock } from "../../infra/clock";

/** What the row operations of one chain's worker need. */
export interface ClaimRows {
  db: Database;
  clock: Clock;
  chainId: number;
}

type ClaimRow = typeof channelClaims.$inferSelect;

/** The batch's idempotency key: its chain and its (channel, cumulative amount) pairs, in channel order. */
export function claimId(chainId: number, entries: readonly ClaimEntry[]): string {
  const hash = createHash("sha256").update(`x402-claim:${chainId}`);
  for (const entry of [...entries].sort((a, b) => a.channelId.localeCompare(b.channelId))) {
    hash.update(`|${entry.channelId}:${entry.totalClaimed}`);
  }
  return `clm_${hash.digest("hex").slice(0, 40)}`;
}

export async function setClaimState(rows: ClaimRows, id: string, fields: Partial<Omit<ClaimRow, "id">>) {
  const { db, clock } = rows;
  await db
    .update(channelClaims)
    .set({ ...fields, updatedAt: clock.now() })
    .where(eq(channelClaims.id, id));
}

/** Ends a claim and frees its channels; `confirmed` also raises each channel's claimed total. */
export async function finishClaim(
  rows: ClaimRows,
  claim: ClaimRow,
  state: "confirmed" | "failed",
  fields: { lastError?: string; attempts?: number } = {},
): Promise<ClaimState> {
  const { db, clock, chainId } = rows;
  await db.transaction(async (tx) => {
    await tx
      .update(channelClaims)
      .set({ ...fields, state, updatedAt: clock.now() })
      .where(eq(channelClaims.id, claim.id));
    for (const entry of claim.entries) {
      await tx
        .update(paymentChannels)
        .set({
          claimId: null,
          ...(state === "confirmed"
            ? {
                totalClaimed: sql`greatest(${paymentChannels.totalClaimed}, ${entry.totalClaimed}::numeric)`,
              }
            : {}),
          version: sql`${paymentChannels.version} + 1`,
          updatedAt: clock.now(),
        })
        .where(
          and(
            eq(paymentChannels.chainId, chainId),
            eq(paymentChannels.channelId, entry.channelId),
            eq(paymentChannels.claimId, claim.id),
          ),
        );
    }
  });
  return state;
}

/** Writes the next batch (claim row first, then the channels' claim_id), or undefined when nothing is owed. */
export function planClaim(rows: ClaimRows, maxPerBatch: number): Promise<ClaimRow | undefined> {
  const { db, clock, chainId } = rows;
  return db.transaction(async (tx) => {
    const owed = await tx
      .select()
      .from(paymentChannels)
      .where(
        and(
          eq(paymentChannels.chainId, chainId),
          eq(paymentChannels.status, "open"),
          isNull(paymentChannels.claimId),
          sql`${paymentChannels.chargedCumulative} > ${paymentChannels.totalClaimed}`,
        ),
      )
      .orderBy(asc(paymentChannels.channelId))
      .limit(maxPerBatch)
      .for("update");
    if (owed.length === 0) return undefined;
    const entries: ClaimEntry[] = owed.map((row) => ({
      channelId: row.channelId,
      channelConfig: row.config,
      maxClaimableAmount: row.signedMaxClaimable,
      signature: row.signature,
      totalClaimed: row.chargedCumulative,
    }));
    const now = clock.now();
    const id = claimId(chainId, entries);
    const [claim] = await tx
      .insert(channelClaims)
      .values({ id, chainId, state: "pending", entries, attempts: 0, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning();
    // The same amounts were claimed before and that claim failed: not resent until a channel's amount moves.
    if (!claim) return undefined;
    await tx
      .update(paymentChannels)
      .set({ claimId: id, version: sql`${paymentChannels.version} + 1`, updatedAt: now })
      .where(
        and(
          eq(paymentChannels.chainId, chainId),
          inArray(
            paymentChannels.channelId,
            entries.map((entry) => entry.channelId),
          ),
        ),
      );
    return claim;
  });
}
