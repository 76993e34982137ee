/**
 * One claim worker at a time per database and chain (docs/decisions/0082): claims of different chains touch
 * different rows and different relayer nonces, so one network's pass never skips another's. On PostgreSQL: a
 * session advisory lock on a
 * dedicated connection, taken without waiting; it ends with its connection, so a worker that dies frees it. On
 * PGlite (one process per data directory, packages/db/src/pglite-lock.ts) the same rule in memory, per handle: the
 * one connection's session locks are re-entrant, so they cannot keep two workers of one process apart.
 */
import type { DatabaseHandle } from "@tollgate/db";

/** The high 32 bits of the claim worker's pg_advisory_lock key ("toll" as ASCII); the low 32 are the chain id. */
export const CLAIM_LOCK_PREFIX = 0x746f_6c6cn;

/** The claim worker's advisory lock key on `chainId` (an EIP-155 chain id below 2^32). */
export function claimLockKey(chainId: number): bigint {
  if (!Number.isSafeInteger(chainId) || chainId < 0 || chainId >= 2 ** 32) {
    throw new RangeError(`chain id ${chainId} does not fit the claim lock's 32 bits`);
  }
  return (CLAIM_LOCK_PREFIX << 32n) | BigInt(chainId);
}

export interface ClaimLock {
  /** The lock's release when taken now, else undefined (another worker holds it). */
  tryAcquire(): Promise<(() => Promise<void>) | undefined>;
}

const heldInProcess = new WeakMap<DatabaseHandle, Set<number>>();

export function advisoryClaimLock(handle: DatabaseHandle, chainId: number): ClaimLock {
  const key = claimLockKey(chainId);
  const openSession = handle.openSession?.bind(handle);
  if (!openSession) {
    return {
      async tryAcquire() {
        const held = heldInProcess.get(handle) ?? new Set<number>();
        heldInProcess.set(handle, held);
        if (held.has(chainId)) return undefined;
        held.add(chainId);
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          held.delete(chainId);
        };
      },
    };
  }
  return {
    async tryAcquire() {
      const session = openSession();
      try {
        const [row] = await session.unsafe(`select pg_try_advisory_lock(${key}) as taken`);
        if (row?.taken !== true) {
          await session.end({ timeout: 5 });
          return undefined;
        }
      } catch (error) {
        await session.end({ timeout: 5 }).catch(() => {});
        throw error;
      }
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        // Ending the session frees the lock even when the unlock itself fails.
        await session.unsafe(`select pg_advisory_unlock(${key})`).catch(() => {});
        await session.end({ timeout: 5 });
      };
    },
  };
}
