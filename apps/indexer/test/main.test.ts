/**
 * The indexer as its own process (`pnpm --filter @tollgate/indexer start`): SIGTERM and SIGINT
 * each end it with exit 0 within 10 seconds, after releasing its advisory lock and closing the database;
 * a restart on the same data picks up from the stored cursor, and every payment is recorded exactly once.
 * A recording JSON-RPC proxy in front of the local chain shows when a payment's block has been committed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalChains } from "@tollgate/contracts/local-chains";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import { openDatabase, settlements } from "@tollgate/db";
import { logLineProblems } from "@tollgate/shared/logger";
import { spawnTsx, type TestProcess } from "@tollgate/shared/test-process";
import { inArray } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, chainOf, headOf, mine, pay, startChains, waitFor } from "./helpers";
import { postgresServerUrl } from "./test-databases";

const postgresServer = postgresServerUrl;
let chains: LocalChains;
let proxy: RpcFaultProxy;
const workDir = mkdtempSync(join(tmpdir(), "tollgate-indexer-main-"));
const manifestPath = join(workDir, "deployments.json");

beforeAll(async () => {
  chains = await startChains(["amoy"]);
  proxy = await startRpcFaultProxy(chainOf(chains, "amoy").rpcUrl);
  writeFileSync(manifestPath, JSON.stringify(chains.manifest));
});
afterAll(async () => {
  await proxy?.close();
  await chains?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

type Running = TestProcess;

const startProcess = (env: Record<string, string>): Running =>
  spawnTsx(join(import.meta.dirname, ".."), "src/main.ts", env);

/** Resolves once a getLogs read covered `block` and two later polls began: its batch was committed. */
async function committedThrough(block: bigint): Promise<void> {
  await waitFor(() => {
    const at = proxy.calls.findIndex(
      (call) =>
        call.method === "eth_getLogs" && BigInt((call.params[0] as { toBlock: string }).toBlock) >= block,
    );
    if (at < 0) return false;
    return proxy.calls.slice(at + 1).filter((call) => call.method === "eth_blockNumber").length >= 2;
  }, 60_000);
}

async function stopWith(running: Running, signal: NodeJS.Signals): Promise<void> {
  const sentAt = Date.now();
  running.child.kill(signal);
  const code = await Promise.race([
    running.exited,
    new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 10_000)),
  ]);
  if (code === "late") running.child.kill("SIGKILL");
  expect(code, running.output()).toBe(0);
  expect(Date.now() - sentAt).toBeLessThan(10_000);
}

const kinds = postgresServer ? (["pglite", "postgres"] as const) : (["pglite"] as const);

describe.each(kinds)("the indexer process on %s", (kind) => {
  it("stops on SIGTERM and on SIGINT with exit 0, and a restart records every payment exactly once", async () => {
    const chain = chainOf(chains, "amoy");
    const dataDir = mkdtempSync(join(workDir, `${kind}-`));
    let databaseUrl: string | undefined;
    let dropDatabase = async () => {};
    if (kind === "postgres" && postgresServer) {
      const name = `tollgate_idxmain_${Date.now().toString(36)}`;
      const admin = postgres(postgresServer, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name}`);
      await admin.end();
      const url = new URL(postgresServer);
      url.pathname = `/${name}`;
      databaseUrl = url.toString();
      dropDatabase = async () => {
        const cleanup = postgres(postgresServer, { max: 1, onnotice: () => {} });
        await cleanup.unsafe(`drop database if exists ${name} with (force)`);
        await cleanup.end();
      };
    }
    const env = {
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      DATA_DIR: dataDir,
      DEPLOYMENT_MANIFEST: manifestPath,
      INDEXER_NETWORKS: "amoy",
      POLL_INTERVAL_MS: "100",
      WEBHOOK_POLL_INTERVAL_MS: "100",
      CONFIRMATIONS_AMOY: "1",
      RPC_URL_AMOY: proxy.url,
      START_BLOCK_AMOY: String(await headOf(chain)),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };
    const merchant = account(19).address;
    const txs: string[] = [];
    try {
      for (const signal of ["SIGTERM", "SIGINT"] as const) {
        const running = startProcess(env);
        await waitFor(() => running.output().includes('"msg":"following amoy"'), 90_000);
        const tx = await pay(chain, 17, merchant, `qt_idxmain${kind}${signal}`);
        txs.push(tx);
        await mine(chain, 2);
        await committedThrough(await headOf(chain));
        if (databaseUrl) {
          // The follower holds its network's advisory lock while it runs, and gives it back on the signal.
          const probe = postgres(databaseUrl, { max: 1, onnotice: () => {} });
          const held = () =>
            probe`select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`;
          expect((await held())[0]?.n).toBe(1);
          await stopWith(running, signal);
          expect((await held())[0]?.n).toBe(0);
          await probe.end();
        } else {
          await stopWith(running, signal);
        }
        expect(running.output()).not.toMatch(/"level":(50|60)/);
        // Every line the process wrote has the one log shape: JSON, ISO time, each key once (decision 0059).
        const lines = running.output().trim().split("\n");
        expect(lines.length).toBeGreaterThan(2);
        expect(
          lines.flatMap((line) => logLineProblems(line).map((problem) => `${problem}: ${line}`)),
        ).toEqual([]);
      }
      const handle = databaseUrl
        ? await openDatabase({ kind: "postgres", url: databaseUrl })
        : await openDatabase({ kind: "pglite", dataDir: join(dataDir, "pglite") });
      try {
        const rows = await handle.db.select().from(settlements).where(inArray(settlements.txHash, txs));
        expect(rows.map((row) => row.txHash).sort()).toEqual([...txs].sort());
      } finally {
        await handle.close();
      }
    } finally {
      await dropDatabase();
    }
  }, 240_000);
});
