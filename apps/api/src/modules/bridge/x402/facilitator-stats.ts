/**
 * Counts of the embedded facilitator's work for operators (`/api/dashboard/x402`): verifies and settles by
 * outcome with their refusal reasons, settlements in flight (waiting for the send slot or the receipt), and the gas
 * the relayer paid for successful settlements, read from the chain after the answer (never on its path).
 * Invariants: counting never changes a result or an error; reasons are the facilitator's own codes, at most
 * {@link MAX_REASONS} distinct ones (others count as `other`).
 */
import type { ChainContext } from "../../chains";
import type { Facilitator } from "./facilitator";

export const MAX_REASONS = 50;

export interface FacilitatorStats {
  since: Date;
  verifies: { valid: number; invalid: number; errors: number };
  settles: { succeeded: number; failed: number; errors: number };
  /** Refusal reasons of verify (invalidReason) and settle (errorReason). */
  reasons: Map<string, number>;
  inFlight: number;
  /** Wei the relayer paid for successful settlements whose receipt was read; `gasUnread` could not be. */
  gasWei: bigint;
  gasUnread: number;
}

function countReason(stats: FacilitatorStats, reason: string | undefined): void {
  const key = reason && (stats.reasons.has(reason) || stats.reasons.size < MAX_REASONS) ? reason : "other";
  stats.reasons.set(key, (stats.reasons.get(key) ?? 0) + 1);
}

/** The same facilitator, counting as it goes. */
export function countingFacilitator(
  inner: Facilitator,
  now: () => Date,
  chain: ChainContext | undefined,
): Facilitator & { stats: FacilitatorStats } {
  const stats: FacilitatorStats = {
    since: now(),
    verifies: { valid: 0, invalid: 0, errors: 0 },
    settles: { succeeded: 0, failed: 0, errors: 0 },
    reasons: new Map(),
    inFlight: 0,
    gasWei: 0n,
    gasUnread: 0,
  };
  const readGas = (hash: string) => {
    if (!chain || !/^0x[0-9a-fA-F]{64}$/.test(hash)) {
      stats.gasUnread++;
      return;
    }
    chain.client
      .getTransactionReceipt({ hash: hash as `0x${string}` })
      .then((receipt) => {
        stats.gasWei += receipt.gasUsed * receipt.effectiveGasPrice;
      })
      .catch(() => {
        stats.gasUnread++;
      });
  };
  return {
    stats,
    offers: () => inner.offers(),
    get settleLeaseMs() {
      return inner.settleLeaseMs;
    },
    relayer: inner.relayer,
    chain: inner.chain,
    async verify(version, payload, requirement) {
      try {
        const verdict = await inner.verify(version, payload, requirement);
        if (verdict.isValid) stats.verifies.valid++;
        else {
          stats.verifies.invalid++;
          countReason(stats, verdict.invalidReason);
        }
        return verdict;
      } catch (error) {
        stats.verifies.errors++;
        throw error;
      }
    },
    async settle(version, payload, requirement) {
      stats.inFlight++;
      try {
        const result = await inner.settle(version, payload, requirement);
        if (result.success) {
          stats.settles.succeeded++;
          readGas(result.transaction);
        } else {
          stats.settles.failed++;
          countReason(stats, result.errorReason);
        }
        return result;
      } catch (error) {
        stats.settles.errors++;
        throw error;
      } finally {
        stats.inFlight--;
      }
    },
  };
}
