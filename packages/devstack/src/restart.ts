/**
 * What `pnpm start` reconciles with the data directory on every start (docs/decisions/0058): the database against
 * the local chains (rows of chains that were started anew are forgotten, so the indexer never halts on them), the
 * demo bridge providers against the demo upstream's new port, and whether an operator exists (the banner).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Env, RunningApi } from "@tollgate/api";
import { type LocalChains, writeJsonAtomic } from "@tollgate/contracts/local-chains";
import {
  adminAccounts,
  bridgeProviders,
  type ChainResetCounts,
  type Database,
  indexerCursors,
  resetLocalChainData,
} from "@tollgate/db";
import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import type { EIP1193Provider, Hex } from "viem";
import { resetLine } from "./banner";
import { DEMO_BRIDGE_PROVIDERS } from "./demo";

/** `DATA_DIR/chains/indexed.json`: the genesis hash of each local chain the database was last reconciled with. */
export const INDEXED_CHAINS_FILE = join("chains", "indexed.json");

interface IndexedChains {
  /** Which database the record describes (PGlite directory or a hash of the PostgreSQL URL). */
  database: string;
  networks: Record<string, { chainId: number; genesisHash: Hex }>;
}

export interface RunningLocalChain {
  network: string;
  chainId: number;
  provider: EIP1193Provider;
  /** The chain's identity now (a chain started anew has a new genesis). */
  genesisHash: Hex;
}

export interface ChainReconciliation {
  /** Networks whose rows were forgotten, and why. */
  reset: { network: string; why: string }[];
  counts?: ChainResetCounts;
}

/** Names a database for the record without keeping a password: PGlite's directory, or a hash of the URL. */
export function databaseIdentity(dataDir: string, databaseUrl: string | undefined): string {
  return databaseUrl
    ? `postgres:${createHash("sha256").update(databaseUrl).digest("hex").slice(0, 16)}`
    : `pglite:${join(dataDir, "pglite")}`;
}

function readIndexed(file: string): IndexedChains | undefined {
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as IndexedChains) : undefined;
  } catch {
    return undefined; // unreadable: decided from the indexer cursor instead
  }
}

/**
 * Finds the local chains the database knows as other chains and forgets their rows (`resetLocalChainData`), then
 * records the chains' genesis hashes. A chain counts as new when its genesis differs from the one recorded for this
 * database; without a record, when the indexer's cursor block is not on the chain with the same hash.
 * Only the chains passed here (the dev stack's local chains) are ever reset.
 */
export async function reconcileLocalChains(opts: {
  db: Database;
  dataDir: string;
  database: string;
  chains: readonly RunningLocalChain[];
}): Promise<ChainReconciliation> {
  const file = join(opts.dataDir, INDEXED_CHAINS_FILE);
  const recorded = readIndexed(file);
  const known = recorded?.database === opts.database ? recorded.networks : {};
  const cursors = await opts.db
    .select()
    .from(indexerCursors)
    .where(
      inArray(
        indexerCursors.chainId,
        opts.chains.map((c) => c.chainId),
      ),
    );
  const reset: ChainReconciliation["reset"] = [];
  for (const chain of opts.chains) {
    const before = known[chain.network];
    if (before) {
      if (before.genesisHash !== chain.genesisHash || before.chainId !== chain.chainId)
        reset.push({ network: chain.network, why: "the chain was started anew (new genesis block)" });
      continue;
    }
    const cursor = cursors.find((c) => c.chainId === chain.chainId);
    if (!cursor) continue;
    const block = (await (
      chain.provider as unknown as { request(a: { method: string; params: unknown[] }): Promise<unknown> }
    ).request({
      method: "eth_getBlockByNumber",
      params: [`0x${cursor.blockNumber.toString(16)}`, false],
    })) as { hash: Hex } | null;
    if (block?.hash !== cursor.blockHash)
      reset.push({
        network: chain.network,
        why: `the indexed block ${cursor.blockNumber} is not on the chain`,
      });
  }
  const ids = opts.chains.filter((c) => reset.some((r) => r.network === c.network)).map((c) => c.chainId);
  const counts = ids.length > 0 ? await resetLocalChainData(opts.db, ids) : undefined;
  writeJsonAtomic(file, {
    database: opts.database,
    networks: Object.fromEntries(
      opts.chains.map((c) => [c.network, { chainId: c.chainId, genesisHash: c.genesisHash }]),
    ),
  } satisfies IndexedChains);
  return { reset, ...(counts ? { counts } : {}) };
}

/**
 * Points the demo bridge providers at this start's demo upstream. Only rows still on a loopback upstream are moved
 * (an operator who pointed one elsewhere keeps it); answers how many rows changed.
 */
export async function followDemoUpstream(
  db: Database,
  ids: readonly string[],
  upstreamUrl: string,
  now: Date = new Date(),
): Promise<number> {
  const rows = await db
    .select({ id: bridgeProviders.id, upstreamUrl: bridgeProviders.upstreamUrl })
    .from(bridgeProviders)
    .where(and(inArray(bridgeProviders.id, [...ids]), ne(bridgeProviders.upstreamUrl, upstreamUrl)));
  const moved = rows.filter((row) =>
    /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/.test(row.upstreamUrl),
  );
  for (const row of moved)
    await db
      .update(bridgeProviders)
      .set({ upstreamUrl, updatedAt: now })
      .where(eq(bridgeProviders.id, row.id));
  return moved.length;
}

/** Whether an enabled operator account exists (the banner's advice depends on it). */
export async function operatorExists(db: Database): Promise<boolean> {
  const [row] = await db
    .select({ id: adminAccounts.id })
    .from(adminAccounts)
    .where(isNull(adminAccounts.disabledAt))
    .limit(1);
  return row !== undefined;
}

/**
 * Everything `pnpm start` reconciles once the API has migrated the database and before the indexer starts: the local
 * chains (`reconcileLocalChains`, one line when rows were removed), the demo bridge providers (when the demo bridge
 * runs) and whether an operator exists.
 */
export async function reconcileDataDir(opts: {
  env: Env;
  api: RunningApi;
  chains?: LocalChains;
  /** This start's demo upstream; undefined when BRIDGE_PROVIDERS_FILE replaces the demo bridge. */
  demoUpstreamUrl: string | undefined;
  say: (line: string) => void;
}): Promise<{ hasOperator: boolean }> {
  const db = opts.api.deps.db.db;
  if (opts.chains) {
    const reconciled = await reconcileLocalChains({
      db,
      dataDir: opts.env.dataDir,
      database: databaseIdentity(opts.env.dataDir, opts.env.databaseUrl),
      chains: opts.chains.chains.flatMap((chain) =>
        chain.state ? [{ ...chain, genesisHash: chain.state.genesisHash }] : [],
      ),
    });
    const line = resetLine(reconciled, opts.chains.chains);
    if (line) opts.say(line);
  }
  if (opts.demoUpstreamUrl) {
    const ids = DEMO_BRIDGE_PROVIDERS.map((demo) => demo.id);
    if ((await followDemoUpstream(db, ids, opts.demoUpstreamUrl)) > 0)
      opts.api.deps.bridgeProviders?.invalidate();
  }
  return { hasOperator: await operatorExists(db) };
}
