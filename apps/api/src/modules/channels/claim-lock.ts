/**
 * One claim worker at a time per database (docs/decisions/0082). On PostgreSQL: a session advisory lock on a
 * dedicated connection, taken without waiting; it ends with its connection, so a worker that dies frees it. On
 * PGlite (one process per data directory, packages/db/src/pglite-lock.ts) the same rule in memory, per handle: the
 * one connection's session locks are re-entrant, so they cannot keep two workers of one process apart.
 */
import type { DatabaseHandle } from "@tollgate/db";

/** pg_advisory_lock key of the claim worker ("tollclms" as ASCII). */
export const CLAIM_LOCK_KEY = 0x746f_6c6c_636c_6d73n;

export interface ClaimLock {
  /** The lock's release when taken now, else undefined (another worker holds it). */
  tryAcquire(): Promise<(() => Promise<void>) | undefined>;
}

const heldInProcess = new WeakSet<DatabaseHandle>();

export function advisoryClaimLock(handle: DatabaseHandle): ClaimLock {
  const openSession = handle.openSession?.bind(handle);
  if (!openSession) {
    return {
      async tryAcquire() {
        if (heldInProcess.has(handle)) return undefined;
        heldInProcess.add(handle);
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          heldInProcess.delete(handle);
        };
      },
    };
  }
  return {
    async tryAcquire() {
      const session = openSession();
      try {
        const [row] = await session.unsafe(`select pg_try_advisory_lock(${CLAIM_LOCK_KEY}) as taken`);
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
        await session.unsafe(`select pg_advisory_unlock(${CLAIM_LOCK_KEY})`).catch(() => {});
        await session.end({ timeout: 5 });
      };
    },
  };
}
