/**
 * The claim worker of x402 `batch-settlement` (docs/decisions/0082; docs/sessions.md "Claims"): collects the
 * channels whose charged amount is above what is claimed, and claims them on chain in batches.
 *
 * Invariants:
 * - One worker runs at a time per database (./claim-lock.ts); a second one returns at once.
 * - A claim row (state `pending`) and the channels' `claim_id` are written in one transaction BEFORE anything is
 *   sent, so a crash at any point leaves either nothing or a row to resume. A channel is in at most one
 *   unfinished claim; charges that arrive meanwhile go into the next claim.
 * - Resuming re-sends a batch whose outcome is unknown. That is safe: a claim row carries the channel's cumulative
 *   `totalClaimed`, not a delta, and the escrow applies a row only when it raises the channel's on-chain
 *   `totalClaimed` (`x402BatchSettlement._processVoucherClaim` returns early when `totalClaimed <= ch.totalClaimed`;
 *   scheme spec "Claim & Settlement Strategy"). The same cumulative amount is therefore credited at most once, however
 *   often it is sent.
 * - Confirmation raises each channel's `total_claimed` to the claimed amount (never lowers it) and frees the channel.
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
import type { ClaimLock } from "./claim-lock";

/** A batch as the chain side sends it: one `claimWithSignature` transaction. */
export interface ClaimBatch {
  id: string;
  chainId: number;
  entries: ClaimEntry[];
  /** 1 on the first send; a resend of the same batch carries the same entries. */
  attempt: number;
}

/** Where a sent claim transaction stands. `dropped`: the node no longer knows it (never mined, evicted). */
export type ClaimTxStatus = "confirmed" | "reverted" | "pending" | "dropped";

/**
 * The chain side, behind an interface (the escrow contract lands separately): a nonce-managed relayer sends
 * `claimWithSignature` and answers for its receipt. `submitClaims` must not return before the transaction is
 * accepted by the node; it may throw whether or not it was.
 */
export interface ClaimChain {
  submitClaims(batch: ClaimBatch): Promise<{ txHash: string }>;
  claimStatus(txHash: string): Promise<ClaimTxStatus>;
}

export interface ClaimBatcherDeps {
  db: Database;
  lock: ClaimLock;
  chain: ClaimChain;
  clock: Clock;
  chainId: number;
  /** Rows per `claimWithSignature` (gas bound). */
  maxPerBatch?: number;
  /** Sends before a batch whose sends keep throwing is given up. */
  maxAttempts?: number;
}

export interface ClaimProgress {
  id: string;
  state: ClaimState;
  entries: number;
}

/** What one run did: `ran` false when another worker held the lock. */
export interface ClaimRunReport {
  ran: boolean;
  claims: ClaimProgress[];
}

export const DEFAULT_MAX_CLAIMS_PER_BATCH = 50;
export const DEFAULT_MAX_CLAIM_ATTEMPTS = 5;

type ClaimRow = typeof channelClaims.$inferSelect;

/** The batch's idempotency key: its chain and its (channel, cumulative amount) pairs, in channel order. */
export function claimId(chainId: number, entries: readonly ClaimEntry[]): string {
  const hash = createHash("sha256").update(`x402-claim:${chainId}`);
  for (const entry of [...entries].sort((a, b) => a.channelId.localeCompare(b.channelId))) {
    hash.update(`|${entry.channelId}:${entry.totalClaimed}`);
  }
  return `clm_${hash.digest("hex").slice(0, 40)}`;
}

export function createClaimBatcher(deps: ClaimBatcherDeps) {
  const maxPerBatch = deps.maxPerBatch ?? DEFAULT_MAX_CLAIMS_PER_BATCH;
  const maxAttempts = deps.maxAttempts ?? DEFAULT_MAX_CLAIM_ATTEMPTS;
  const { db, chain, clock, chainId } = deps;

  const setState = async (id: string, fields: Partial<Omit<ClaimRow, "id">>) => {
    await db
      .update(channelClaims)
      .set({ ...fields, updatedAt: clock.now() })
      .where(eq(channelClaims.id, id));
  };

  /** Ends a claim and frees its channels; `confirmed` also raises each channel's claimed total. */
  const finish = async (
    claim: ClaimRow,
    state: "confirmed" | "failed",
    fields: { lastError?: string; attempts?: number } = {},
  ): Promise<ClaimState> => {
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
  };

  /** What a sent transaction's receipt means for its claim; `undefined`: not mined yet, or unknown to the node. */
  const settleStatus = async (claim: ClaimRow, txHash: string): Promise<ClaimState | undefined> => {
    const status = await chain.claimStatus(txHash);
    if (status === "confirmed") return finish(claim, "confirmed");
    if (status === "reverted")
      return finish(claim, "failed", { lastError: `claim transaction ${txHash} reverted` });
    return status === "pending" ? "submitted" : undefined;
  };

  /**
   * Moves one unfinished claim on as far as it goes now. A claim not known to be on the chain (new, crashed
   * before its hash was recorded, or dropped by the node) is sent (again): safe, see the module comment.
   */
  const advance = async (claim: ClaimRow): Promise<ClaimState> => {
    if (claim.state === "submitted" && claim.txHash) {
      const state = await settleStatus(claim, claim.txHash);
      if (state) return state;
    }
    const attempt = claim.attempts + 1;
    let txHash: string;
    try {
      ({ txHash } = await chain.submitClaims({ id: claim.id, chainId, entries: claim.entries, attempt }));
    } catch (error) {
      const lastError = error instanceof Error ? error.message : String(error);
      if (attempt >= maxAttempts) return finish(claim, "failed", { lastError, attempts: attempt });
      await setState(claim.id, { attempts: attempt, lastError });
      return "pending";
    }
    await setState(claim.id, { state: "submitted", txHash, attempts: attempt, lastError: null });
    // Dropped straight after the send: left submitted; the next run sends it again.
    return (await settleStatus(claim, txHash)) ?? "submitted";
  };

  /** Writes the next batch (claim row first, then the channels' claim_id), or undefined when nothing is owed. */
  const plan = async (): Promise<ClaimRow | undefined> =>
    db.transaction(async (tx) => {
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

  return {
    /**
     * One pass under the lock: resumes every unfinished claim (oldest first), then, when none is left waiting,
     * writes and sends new batches until nothing is owed.
     */
    async run(): Promise<ClaimRunReport> {
      const release = await deps.lock.tryAcquire();
      if (!release) return { ran: false, claims: [] };
      const claims: ClaimProgress[] = [];
      try {
        const unfinished = await db
          .select()
          .from(channelClaims)
          .where(
            and(eq(channelClaims.chainId, chainId), inArray(channelClaims.state, ["pending", "submitted"])),
          )
          .orderBy(asc(channelClaims.createdAt), asc(channelClaims.id));
        let waiting = false;
        for (const claim of unfinished) {
          const state = await advance(claim);
          claims.push({ id: claim.id, state, entries: claim.entries.length });
          if (state === "pending" || state === "submitted") waiting = true;
        }
        while (!waiting) {
          const claim = await plan();
          if (!claim) break;
          const state = await advance(claim);
          claims.push({ id: claim.id, state, entries: claim.entries.length });
          waiting = state === "pending" || state === "submitted";
        }
        return { ran: true, claims };
      } finally {
        await release();
      }
    },
  };
}

export type ClaimBatcher = ReturnType<typeof createClaimBatcher>;
