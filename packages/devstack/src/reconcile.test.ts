/**
 * reconcileLocalChains (docs/decisions/0058) on PGlite (and PostgreSQL when configured) with real in-process chains: a chain whose genesis differs from
 * the one recorded for this database is new and its rows go; without a record, the indexer cursor decides; a chain
 * that is still the recorded one, or still holds the cursor's block, keeps its rows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInProcessNetwork } from "@tollgate/contracts/hardhat";
import { type DatabaseHandle, indexerCursors } from "@tollgate/db";
import { createTestDatabase, testDatabaseKinds, testDatabaseServersFrom } from "@tollgate/db/testing";
import type { EIP1193Provider, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningLocalChain, reconcileLocalChains } from "./restart";

type Rpc = { request(a: { method: string; params: unknown[] }): Promise<unknown> };
const blockHash = async (provider: EIP1193Provider, n: number) =>
  (
    (await (provider as unknown as Rpc).request({
      method: "eth_getBlockByNumber",
      params: [`0x${n.toString(16)}`, false],
    })) as { hash: Hex }
  ).hash;

async function chainAt(seconds: number): Promise<RunningLocalChain> {
  const provider = await createInProcessNetwork({ chainId: 80002, initialDate: new Date(seconds * 1000) });
  await (provider as unknown as Rpc).request({ method: "hardhat_mine", params: ["0x3"] });
  return { network: "amoy", chainId: 80002, provider, genesisHash: await blockHash(provider, 0) };
}

// Test setup: the one place here that reads which servers this run has.
const servers = testDatabaseServersFrom(process.env);

describe.each(testDatabaseKinds(servers))("reconcileLocalChains on %s", (kind) => {
  let handle: DatabaseHandle;
  let dataDir: string;
  beforeAll(async () => {
    handle = await createTestDatabase(kind, servers);
    dataDir = mkdtempSync(join(tmpdir(), "tollgate-reconcile-"));
  }, 120_000); // a PostgreSQL template is built once per migration set
  afterAll(async () => {
    await handle?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const cursorAt = async (chain: RunningLocalChain, hash?: Hex) => {
    await handle.db.delete(indexerCursors);
    await handle.db.insert(indexerCursors).values({
      chainId: chain.chainId,
      network: chain.network,
      blockNumber: 2n,
      blockHash: hash ?? (await blockHash(chain.provider, 2)),
      updatedAt: new Date(),
    });
  };
  const reconcile = (chain: RunningLocalChain, database = "pglite:test") =>
    reconcileLocalChains({ db: handle.db, dataDir, database, chains: [chain] });
  const cursors = async () => (await handle.db.select().from(indexerCursors)).length;

  it("keeps the rows of the recorded chain, forgets those of a chain started anew, and records the new one", async () => {
    const yesterday = Math.floor(Date.now() / 1000) - 86_400;
    const first = await chainAt(yesterday);
    await cursorAt(first);
    // No record yet: the cursor block is on the chain with its hash, so nothing is reset.
    expect(await reconcile(first)).toEqual({ reset: [] });
    expect(await reconcile(first)).toEqual({ reset: [] });
    expect(await cursors()).toBe(1);

    const anew = await chainAt(yesterday + 60);
    const result = await reconcile(anew);
    expect(result.reset).toEqual([
      { network: "amoy", why: "the chain was started anew (new genesis block)" },
    ]);
    expect(result.counts).toMatchObject({ cursors: 1 });
    expect(await cursors()).toBe(0);
    // The new chain is now the recorded one.
    await cursorAt(anew);
    expect(await reconcile(anew)).toEqual({ reset: [] });
    expect(await cursors()).toBe(1);
  });

  it("without a record for this database, a cursor block that is not on the chain resets it", async () => {
    const chain = await chainAt(Math.floor(Date.now() / 1000) - 3_600);
    await cursorAt(chain, `0x${"12".repeat(32)}`);
    // A record for another database does not count.
    const result = await reconcile(chain, "postgres:other");
    expect(result.reset).toEqual([{ network: "amoy", why: "the indexed block 2 is not on the chain" }]);
    expect(await cursors()).toBe(0);
  });
});
