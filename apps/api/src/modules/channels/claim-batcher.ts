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
import { type ClaimEntry, type ClaimState, channelClaims, type Database } from "@tollgate/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import type { ClaimLock } from "./claim-lock";
import { type ClaimRows, finishClaim, planClaim, setClaimState } from "./claim-rows";

export { claimId } from "./claim-rows";

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

export function createClaimBatcher(deps: ClaimBatcherDeps) {
  const maxPerBatch = deps.maxPerBatch ?? DEFAULT_MAX_CLAIMS_PER_BATCH;
  const maxAttempts = deps.maxAttempts ?? DEFAULT_MAX_CLAIM_ATTEMPTS;
  const { db, chain, chainId } = deps;
  const rows: ClaimRows = { db, clock: deps.clock, chainId };

  /** What a sent transaction's receipt means for its claim; `undefined`: not mined yet, or unknown to the node. */
  const settleStatus = async (claim: ClaimRow, txHash: string): Promise<ClaimState | undefined> => {
    const status = await chain.claimStatus(txHash);
    if (status === "confirmed") return finishClaim(rows, claim, "confirmed");
    if (status === "reverted")
      return finishClaim(rows, claim, "failed", { lastError: `claim transaction ${txHash} reverted` });
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
      if (attempt >= maxAttempts) return finishClaim(rows, claim, "failed", { lastError, attempts: attempt });
      await setClaimState(rows, claim.id, { attempts: attempt, lastError });
      return "pending";
    }
    await setClaimState(rows, claim.id, { state: "submitted", txHash, attempts: attempt, lastError: null });
    // Dropped straight after the send: left submitted; the next run sends it again.
    return (await settleStatus(claim, txHash)) ?? "submitted";
  };

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
          const claim = await planClaim(rows, maxPerBatch);
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
