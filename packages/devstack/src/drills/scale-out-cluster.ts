/**
 * The scale-out drill's installation (docs/decisions/0063-scale-out-drill.md): one fresh PostgreSQL database, one
 * Redis logical database, a local amoy chain with the contracts and its manifest; the migrate job and the first
 * receipt key as an operator runs them; then two API replicas and two indexers, started through the launcher
 * (./tollgate-launcher.ts) in production mode with the same environment an operator would give them.
 * API `a` reads the chain through a fault proxy (the drill holds one of its calls to kill it mid-request).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalChain, type LocalChains, startTestChains } from "@tollgate/api/testing/chains";
import { HARDHAT_MNEMONIC } from "@tollgate/contracts/deploy";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import { createUnmigratedTestDatabase, type TestDatabaseHandle } from "@tollgate/db/testing";
import { freePort, type TestProcess } from "@tollgate/shared/test-process";
import { mnemonicToAccount } from "viem/accounts";
import {
  claimRedisDatabase,
  connectedApps,
  indexerLockHolder,
  type SqlSession,
  until,
} from "./scale-out-parts";
import type { Launcher, TollgateEntry } from "./tollgate-launcher";

/** The public address both replicas answer for (a load balancer's name): the receipts' `iss`. */
export const PUBLIC_BASE_URL = "https://api.scale-out.tollgate.test";

export type ProcessName = "api-a" | "api-b" | "indexer-1" | "indexer-2";

export interface Cluster {
  chain: LocalChain;
  proxy: RpcFaultProxy;
  sql: SqlSession;
  redisUrl: string;
  apiUrl: Record<"a" | "b", string>;
  running: Map<ProcessName, TestProcess>;
  /** Starts (or starts again) one process with its environment; APIs resolve once ready. */
  start(name: ProcessName): Promise<TestProcess>;
  /** Runs a one-shot job to its end; resolves with its exit code and output. */
  job(entry: TollgateEntry): Promise<{ code: number | null; output: string }>;
  logs(): string;
  close(): Promise<void>;
}

function hex32() {
  return randomBytes(32).toString("hex");
}

/** Builds the installation; `postgresUrl`/`redisUrl` are the test servers (TEST_DATABASE_URL, TEST_REDIS_URL). */
export async function setUpCluster(
  launcher: Launcher,
  servers: { postgresUrl: string; redisUrl: string },
): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-scale-out-"));
  const closers: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(() => undefined);
  };
  try {
    const [chains, database, redis] = await Promise.all([
      startTestChains(dir, ["amoy"]) as Promise<LocalChains>,
      // Empty, so the migrate job below really migrates.
      createUnmigratedTestDatabase("postgres", { postgresUrl: servers.postgresUrl }),
      claimRedisDatabase(servers.redisUrl, `scale-out:${process.pid}`),
    ]);
    closers.push(
      () => chains.stop(),
      () => database.close(),
      () => redis.release(),
    );
    const chain = chains.chains[0] as LocalChain;
    const proxy = await startRpcFaultProxy(chain.rpcUrl);
    closers.push(() => proxy.close());
    const session = (database as TestDatabaseHandle).openSession?.();
    if (!session) throw new Error("the PostgreSQL test database opens no session");
    closers.push(() => session.end({ timeout: 5 }));
    const sql = session as unknown as SqlSession;
    return await assemble({
      launcher,
      dir,
      chains,
      chain,
      proxy,
      sql,
      database,
      redisUrl: redis.url,
      closers,
      close,
    });
  } catch (error) {
    await close();
    throw error;
  }
}

interface Parts {
  launcher: Launcher;
  dir: string;
  chains: LocalChains;
  chain: LocalChain;
  proxy: RpcFaultProxy;
  sql: SqlSession;
  database: TestDatabaseHandle;
  redisUrl: string;
  closers: (() => Promise<unknown>)[];
  close(): Promise<void>;
}

async function assemble(parts: Parts): Promise<Cluster> {
  const { launcher, dir, chains, chain, proxy, sql, database, redisUrl, closers } = parts;
  const quoteSigner = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: 3 }).getHdKey().privateKey;
  if (!quoteSigner) throw new Error("no quote signer key");
  const shared = {
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    DATABASE_URL: database.url,
    DEPLOYMENT_MANIFEST: chains.manifestPath,
    WEBHOOK_SECRET_KEY: hex32(),
    WEBHOOK_ALLOW_LOOPBACK: "true",
    CONFIRMATIONS_AMOY: "1",
  };
  const ports = { a: await freePort(), b: await freePort() };
  const apiUrl = { a: `http://127.0.0.1:${ports.a}`, b: `http://127.0.0.1:${ports.b}` };
  const api = {
    ...shared,
    HOST: "127.0.0.1",
    BASE_URL: PUBLIC_BASE_URL,
    REDIS_URL: redisUrl,
    RECEIPT_KEYS_STORE: "database",
    RECEIPT_KEYS_KEK: hex32(),
    QUOTE_SIGNER_PRIVATE_KEY: `0x${Buffer.from(quoteSigner).toString("hex")}`,
    START_LOCAL_CHAINS: "false",
    SERVE_CONSOLE: "false",
    // A claim left by a killed request is taken over after 1 s (default 60 s), so the drill stays short.
    PAY_IDEMPOTENCY_STALE_SECONDS: "1",
    RATE_LIMIT_QUOTES_PER_MINUTE: "10000",
    RATE_LIMIT_PAYS_PER_MINUTE: "10000",
    RATE_LIMIT_PUBLIC_PER_MINUTE: "100000",
  };
  const indexer = { ...shared, POLL_INTERVAL_MS: "200", WEBHOOK_POLL_INTERVAL_MS: "200" };
  const envs: Record<ProcessName, Record<string, string | undefined>> = {
    "api-a": { ...api, PORT: String(ports.a), DATA_DIR: join(dir, "api-a"), RPC_URL_AMOY: proxy.url },
    "api-b": { ...api, PORT: String(ports.b), DATA_DIR: join(dir, "api-b") },
    "indexer-1": { ...indexer, DATA_DIR: join(dir, "indexer-1") },
    "indexer-2": { ...indexer, DATA_DIR: join(dir, "indexer-2") },
  };
  const running = new Map<ProcessName, TestProcess>();
  const finished: string[] = [];
  const logs = () =>
    [...finished, ...[...running].map(([name, p]) => `--- ${name}\n${p.output().slice(-3000)}`)].join("\n");
  closers.push(async () => {
    for (const p of running.values()) p.child.kill("SIGKILL");
    await Promise.all([...running.values()].map((p) => p.exited));
  });

  const start = async (name: ProcessName) => {
    const old = running.get(name);
    if (old) finished.push(`--- ${name} (earlier run)\n${old.output().slice(-3000)}`);
    // PGAPPNAME names the process's PostgreSQL connections: the drill reads who holds the indexer lock.
    const started = launcher.start(name.startsWith("api") ? "api" : "indexer", {
      ...envs[name],
      PGAPPNAME: name,
    });
    running.set(name, started);
    let gone = false;
    void started.exited.then(() => {
      gone = true;
    });
    const ready = name.startsWith("api")
      ? async () => {
          if (gone) throw new Error(`${name} exited while starting\n${started.output()}`);
          const url = apiUrl[name === "api-a" ? "a" : "b"];
          return (await fetch(`${url}/readyz`).catch(() => undefined))?.ok;
        }
      : async () => {
          if (gone) throw new Error(`${name} exited while starting\n${started.output()}`);
          return (await connectedApps(sql)).has(name);
        };
    await until(`${name} to be ready`, ready, logs, 90_000);
    return started;
  };

  const job = async (entry: TollgateEntry) => {
    const run = launcher.start(entry, { ...api, DATA_DIR: join(dir, entry), PGAPPNAME: entry });
    const code = await run.exited;
    finished.push(`--- ${entry}\n${run.output()}`);
    return { code, output: run.output() };
  };

  return {
    chain,
    proxy,
    sql,
    redisUrl,
    apiUrl,
    running,
    start,
    job,
    logs,
    close: parts.close,
  };
}

/** Waits until `name` holds the indexer lock of the drill's chain. */
export function lockHeldBy(cluster: Cluster, name: ProcessName) {
  return until(
    `${name} to hold the indexer lock`,
    async () => {
      return (await indexerLockHolder(cluster.sql, cluster.chain.chainId)) === name;
    },
    cluster.logs,
    60_000,
  );
}
