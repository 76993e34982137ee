/**
 * One active follower per network (DESIGN §2): on PostgreSQL a session advisory lock held on a reserved
 * connection (`pg_try_advisory_lock`), released when that connection ends, so a crashed process frees
 * it at once; on PGlite (single process) an in-process registry per database handle.
 */
import type { Database, DatabaseHandle } from "@tollgate/db";
import type { ReservedSql, Sql } from "postgres";

export interface NetworkLock {
  release(): Promise<void>;
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
      async release() {
        if (released) return;
        released = true;
        held.delete(chainId);
      },
    };
  }
  // drizzle's postgres-js database exposes its client as `$client` (not in the driver-agnostic type).
  const client = (handle.db as Database & { $client: Sql }).$client;
  const reserved: ReservedSql = await client.reserve();
  try {
    const key = advisoryKey(chainId).toString();
    const [row] = await reserved.unsafe<{ locked: boolean }[]>(
      `select pg_try_advisory_lock(${key}) as locked`,
    );
    if (!row?.locked) {
      reserved.release();
      return undefined;
    }
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        try {
          await reserved.unsafe(`select pg_advisory_unlock(${key})`);
        } finally {
          reserved.release();
        }
      },
    };
  } catch (err) {
    reserved.release();
    throw err;
  }
}
