/**
 * One active follower per network (DESIGN §2): on PostgreSQL a session advisory lock held on a dedicated
 * connection (`pg_try_advisory_lock`), released when that connection ends, so a crashed process frees
 * it at once; on PGlite (single process) an in-process registry per database handle.
 * Losing the lock connection (killed backend, network cut, `pg_terminate_backend`) frees the lock on the
 * server without telling us: `held()` asks pg_locks whether the backend we locked it with still
 * holds it, and the follower asks before every step and inside every commit, so two followers never write
 * at once.
 */
import type { Database, DatabaseHandle } from "@tollgate/db";
import type { Sql } from "postgres";

export interface NetworkLock {
  /** False once the lock is gone (its connection ended); then release it and try to lock again. */
  held(): Promise<boolean>;
  release(): Promise<void>;
}

export class LockLostError extends Error {
  override readonly name = "LockLostError";
}

/** Namespaced key: "tg" in the high bits, the chain id in the low bits. */
export function advisoryKey(chainId: number): bigint {
  return (0x7467n << 32n) | BigInt(chainId);
}

const inProcess = new WeakMap<object, Set<number>>();

/** Tries once; undefined when another follower holds the network. */
export async function tryLockNetwork(
  handle: DatabaseHandle,
  chainId: number,
): Promise<NetworkLock | undefined> {
  if (handle.kind === "pglite") {
    const held = inProcess.get(handle.db) ?? new Set<number>();
    inProcess.set(handle.db, held);
    if (held.has(chainId)) return undefined;
    held.add(chainId);
    let released = false;
    return {
      held: async () => !released,
      async release() {
        if (released) return;
        released = true;
        held.delete(chainId);
      },
    };
  }
  // drizzle's postgres-js database exposes its client as `$client` (not in the driver-agnostic type).
  const pool = (handle.db as Database & { $client: Sql }).$client;
  if (!handle.openSession)
    throw new Error("this PostgreSQL handle cannot open a session for the advisory lock");
  // The lock lives on its own one-connection client, not a reserved pool connection: after its backend
  // dies, postgres.js 3.4.9 throws an uncatchable TypeError when a reserved connection is queried or
  // released (porsager/postgres#1199, #1208). A plain client reconnects instead; `held()` notices.
  const session = handle.openSession();
  const end = () => session.end({ timeout: 5 }).catch(() => {});
  try {
    const bigKey = advisoryKey(chainId);
    const key = bigKey.toString();
    const [row] = await session.unsafe<{ locked: boolean; pid: number }[]>(
      `select pg_try_advisory_lock(${key}) as locked, pg_backend_pid() as pid`,
    );
    if (!row?.locked) {
      await end();
      return undefined;
    }
    let released = false;
    let lost = false;
    const pid = row.pid;
    // A bigint advisory key shows in pg_locks as classid (high 32 bits), objid (low 32 bits), objsubid 1.
    const [hi, lo] = [(bigKey >> 32n).toString(), (bigKey & 0xffffffffn).toString()];
    return {
      async held() {
        if (released || lost) return false;
        // Asked on the pool, not the lock session: that one may be dead or silently reconnected.
        const [check] = await pool.unsafe<{ held: boolean }[]>(
          `select exists(select 1 from pg_locks where locktype = 'advisory' and granted and pid = ${pid}
             and classid = ${hi} and objid = ${lo} and objsubid = 1) as held`,
        );
        lost = !check?.held;
        return !lost;
      },
      async release() {
        if (released) return;
        released = true;
        // Ending the session frees its session locks on the server; a dead one has freed them already.
        await end();
      },
    };
  } catch (err) {
    await end();
    throw err;
  }
}
