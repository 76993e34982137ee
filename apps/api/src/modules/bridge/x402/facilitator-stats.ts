/**
 * Counts of the embedded facilitator's work for operators (`/api/dashboard/x402`), per scheme (docs/decisions/0090):
 * `exact` verifies and settles, `upto` verifies and settles, `batch-settlement` paid-call vouchers and claims, by
 * outcome with their refusal reasons, settlements in flight (waiting for the send slot or the receipt), and the gas
 * the relayer paid for successful `exact` and `upto` settlements, read from the chain after the answer (never on its
 * path).
 * Invariants: counting never changes a result or an error; reasons are the facilitator's own codes, at most
 * {@link MAX_REASONS} distinct ones (others count as `other`).
 */
import type { ChainContext } from "../../chains";
import type { Facilitator } from "./facilitator";
import type { UptoFacilitator } from "./upto-facilitator";

export const MAX_REASONS = 50;

interface VerifyCounts {
  valid: number;
  invalid: number;
  errors: number;
}
interface SettleCounts {
  succeeded: number;
  failed: number;
  errors: number;
}

export interface FacilitatorStats {
  since: Date;
  /** The `exact` scheme (v1 and v2): the bridge's rail and `/facilitator`. */
  verifies: VerifyCounts;
  settles: SettleCounts;
  upto: { verifies: VerifyCounts; settles: SettleCounts };
  /**
   * `batch-settlement` paid calls (a deposit or a voucher): accepted (charge committed), refused (verify said
   * invalid), failed (the charge was not accepted); claims this process finished, confirmed or given up.
   */
  batch: {
    vouchers: { accepted: number; refused: number; failed: number };
    claims: { confirmed: number; failed: number };
  };
  /** Refusal reasons of verify (invalidReason) and settle (errorReason), every scheme. */
  reasons: Map<string, number>;
  inFlight: number;
  /** Wei the relayer paid for successful settlements whose receipt was read; `gasUnread` could not be. */
  gasWei: bigint;
  gasUnread: number;
}

export function countReason(stats: FacilitatorStats, reason: string | undefined): void {
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
    upto: {
      verifies: { valid: 0, invalid: 0, errors: 0 },
      settles: { succeeded: 0, failed: 0, errors: 0 },
    },
    batch: { vouchers: { accepted: 0, refused: 0, failed: 0 }, claims: { confirmed: 0, failed: 0 } },
    reasons: new Map(),
    inFlight: 0,
    gasWei: 0n,
    gasUnread: 0,
  };
  const readGas = gasReader(stats, chain);
  const counted = counting(stats, stats.verifies, stats.settles, readGas);
  return {
    stats,
    offers: () => inner.offers(),
    get settleLeaseMs() {
      return inner.settleLeaseMs;
    },
    relayer: inner.relayer,
    chain: inner.chain,
    verify: (version, payload, requirement) =>
      counted.verify(() => inner.verify(version, payload, requirement)),
    settle: (version, payload, requirement) =>
      counted.settle(() => inner.settle(version, payload, requirement)),
  };
}

/** Adds the gas of a successful settlement's transaction, read after the answer; unreadable ones are counted. */
function gasReader(stats: FacilitatorStats, chain: ChainContext | undefined): (hash: string) => void {
  return (hash) => {
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
}

/** Counts one scheme's verify and settle calls into `verifies` and `settles`; results and errors pass unchanged. */
function counting(
  stats: FacilitatorStats,
  verifies: VerifyCounts,
  settles: SettleCounts,
  readGas: (hash: string) => void,
) {
  return {
    async verify<T extends { isValid: boolean; invalidReason?: string | undefined }>(
      run: () => Promise<T>,
    ): Promise<T> {
      try {
        const verdict = await run();
        if (verdict.isValid) verifies.valid++;
        else {
          verifies.invalid++;
          countReason(stats, verdict.invalidReason);
        }
        return verdict;
      } catch (error) {
        verifies.errors++;
        throw error;
      }
    },
    async settle<T extends { success: boolean; transaction: string; errorReason?: string | undefined }>(
      run: () => Promise<T>,
    ): Promise<T> {
      stats.inFlight++;
      try {
        const result = await run();
        if (result.success) {
          settles.succeeded++;
          readGas(result.transaction);
        } else {
          settles.failed++;
          countReason(stats, result.errorReason);
        }
        return result;
      } catch (error) {
        settles.errors++;
        throw error;
      } finally {
        stats.inFlight--;
      }
    },
  };
}

/** The same `upto` facilitator, counting into `stats.upto` (and the shared reasons, in-flight and gas). */
export function countingUpto(
  inner: UptoFacilitator | undefined,
  stats: FacilitatorStats,
  chain: ChainContext | undefined,
): UptoFacilitator | undefined {
  if (!inner) return undefined;
  const counted = counting(stats, stats.upto.verifies, stats.upto.settles, gasReader(stats, chain));
  return {
    relayer: inner.relayer,
    get settleLeaseMs() {
      return inner.settleLeaseMs;
    },
    verify: (payload, requirements) => counted.verify(() => inner.verify(payload, requirements)),
    settle: (payload, requirements) => counted.settle(() => inner.settle(payload, requirements)),
  };
}

/** The same claim batcher, counting the claims each pass finished (each reaches `confirmed` or `failed` once). */
export function countingClaims<R extends { claims: { state: string }[] }>(
  batcher: { run(): Promise<R> },
  stats: FacilitatorStats,
): { run(): Promise<R> } {
  return {
    async run() {
      const report = await batcher.run();
      for (const claim of report.claims) {
        if (claim.state === "confirmed") stats.batch.claims.confirmed++;
        else if (claim.state === "failed") stats.batch.claims.failed++;
      }
      return report;
    },
  };
}
