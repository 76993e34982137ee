/**
 * A pool of deployed local chain sets shared by the test files of one run (docs/testing.md "Chains"). Starting
 * and deploying the local chains costs seconds per test file; a pool starts each set once and hands it to one
 * file at a time. A lease reads the set over loopback JSON-RPC; its release takes the set back to the state it
 * had right after deployment (`evm_revert` to a snapshot taken then), with automining on, before another file
 * may lease it. A set whose lease is never released (its file crashed) is never handed out again.
 *
 * The pool runs in the test runner's main process (a vitest global setup) and speaks plain HTTP, so workers in
 * other processes lease from it; library code never uses it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import {
  type KnownNetworkName,
  LOCAL_CHAIN_NETWORKS,
  type LocalNetworkName,
} from "@tollgate/shared/networks";
import type { EIP1193Provider } from "viem";
import type { Deployment } from "./deploy";
import {
  buildManifest,
  type LocalChain,
  type LocalChains,
  startLocalChains,
  writeManifestFile,
} from "./local-chains";

/**
 * Where a test run's pool answers: chain-pool-setup.ts sets it in the runner's main process, and the test workers
 * it starts inherit it. Unset (benchmarks, CLIs, a project without the setup): helpers start chains of their own.
 */
export const CHAIN_POOL_ENV = "TOLLGATE_TEST_CHAIN_POOL";

/** The pool URL this test process may lease from, if any. */
export function chainPoolUrl(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env[CHAIN_POOL_ENV] || undefined;
}

/** One chain of a leased set, as the pool describes it (everything but the provider, which is per process). */
export interface PooledChain {
  network: KnownNetworkName;
  chainId: number;
  rpcUrl: string;
  wsUrl: string;
  deployment: Deployment;
}

interface PooledSet {
  id: number;
  chains: LocalChains;
  /** Per network: the snapshot of the freshly deployed state. */
  snapshots: Map<KnownNetworkName, string>;
  /** Per network: how far the chain's clock ran ahead of the wall clock right after deployment, in seconds. */
  clockOffsets: Map<KnownNetworkName, number>;
}

export interface ChainPool {
  /** Where leases are asked for: `POST {url}/lease`, `POST {url}/release/{id}`. */
  url: string;
  stop(): Promise<void>;
}

async function call(provider: EIP1193Provider, method: string, params: unknown[] = []): Promise<unknown> {
  return provider.request({ method, params } as never);
}

async function newSet(id: number): Promise<PooledSet> {
  const chains = await startLocalChains({
    basePort: 0,
    networks: LOCAL_CHAIN_NETWORKS,
    writeManifest: false,
  });
  const snapshots = new Map<KnownNetworkName, string>();
  const clockOffsets = new Map<KnownNetworkName, number>();
  for (const chain of chains.chains) {
    snapshots.set(chain.network, String(await call(chain.provider, "evm_snapshot")));
    clockOffsets.set(chain.network, await clockOffset(chain.provider));
  }
  return { id, chains, snapshots, clockOffsets };
}

/** The node's time adjustment in seconds (`evm_increaseTime` by 0 answers the total adjustment). */
async function clockOffset(provider: EIP1193Provider): Promise<number> {
  return Number(await call(provider, "evm_increaseTime", [0]));
}

/**
 * Puts the chain's clock back to the wall clock plus the offset it had after deployment. `evm_revert` restores
 * the snapshot's time adjustment shifted by the time the snapshot was held, so without this a set's clock drifts
 * by the length of every lease: after half an hour of leases an EIP-3009 authorization signed for "now + 5 min"
 * is already expired on chain. One empty block carries the corrected timestamp; the snapshot is taken after it.
 */
async function realignClock(provider: EIP1193Provider, offset: number): Promise<void> {
  if ((await clockOffset(provider)) === offset) return;
  const latest = (await call(provider, "eth_getBlockByNumber", ["latest", false])) as { timestamp: string };
  const target = Math.max(Number(BigInt(latest.timestamp)) + 1, Math.floor(Date.now() / 1000) + offset);
  await call(provider, "evm_setNextBlockTimestamp", [target]);
  await call(provider, "evm_mine");
}

/**
 * Back to the deployed state: revert (which consumes the snapshot), the clock realigned with the wall clock,
 * snapshot again, automine on, no interval.
 */
async function reset(set: PooledSet): Promise<void> {
  for (const chain of set.chains.chains) {
    const reverted = await call(chain.provider, "evm_revert", [set.snapshots.get(chain.network)]);
    if (reverted !== true) throw new Error(`chain set ${set.id}: ${chain.network} could not be reverted`);
    await realignClock(chain.provider, set.clockOffsets.get(chain.network) ?? 0);
    set.snapshots.set(chain.network, String(await call(chain.provider, "evm_snapshot")));
    await call(chain.provider, "evm_setIntervalMining", [0]);
    await call(chain.provider, "evm_setAutomine", [true]);
  }
}

function describe(set: PooledSet): { id: number; chains: PooledChain[] } {
  return {
    id: set.id,
    chains: set.chains.chains.map(({ network, chainId, rpcUrl, wsUrl, deployment }) => ({
      network,
      chainId,
      rpcUrl,
      wsUrl,
      deployment,
    })),
  };
}

/** Starts the pool's HTTP server on loopback; chain sets are started on demand, one per concurrent lease. */
export async function startChainPool(): Promise<ChainPool> {
  const idle: PooledSet[] = [];
  const leased = new Map<number, PooledSet>();
  const all: PooledSet[] = [];
  let nextId = 1;

  async function lease(): Promise<PooledSet> {
    let set = idle.pop();
    if (!set) {
      set = await newSet(nextId++);
      all.push(set);
    }
    leased.set(set.id, set);
    return set;
  }

  async function release(id: number): Promise<boolean> {
    const set = leased.get(id);
    if (!set) return false;
    leased.delete(id);
    await reset(set);
    idle.push(set);
    return true;
  }

  const server = http.createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const released = /^\/release\/(\d+)$/.exec(req.url ?? "");
    const work =
      req.method === "POST" && req.url === "/lease"
        ? lease().then((set) => answer(200, describe(set)))
        : req.method === "POST" && released
          ? release(Number(released[1])).then((ok) => answer(ok ? 200 : 404, { released: ok }))
          : Promise.resolve(answer(404, { error: "unknown pool request" }));
    work.catch((error: unknown) => answer(500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(all.map((set) => set.chains.stop()));
    },
  };
}

/** One JSON-RPC exchange on a fresh connection: a kept-alive socket the server times out would fail mid-test. */
function post(rpcUrl: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      rpcUrl,
      { method: "POST", agent: false, headers: { "content-type": "application/json" } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** An EIP-1193 provider over loopback JSON-RPC whose errors carry the node's code, message and data, as in-process. */
function httpProvider(rpcUrl: string): EIP1193Provider {
  let id = 0;
  const request = async ({ method, params }: { method: string; params?: unknown }) => {
    const answer = JSON.parse(
      await post(rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: params ?? [] })),
    ) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
    return answer.result;
  };
  // viem's EIP1193Provider type is a typed overload set; the runtime contract is this one `request` function.
  return { request, on: () => undefined, removeListener: () => undefined } as unknown as EIP1193Provider;
}

export interface LeaseOptions {
  /** The pool serves the local-chain networks only (decision 0057). */
  networks?: readonly LocalNetworkName[];
  /** Where deployments.json is written (as startLocalChains does), unless writeManifest is false. */
  dataDir?: string;
  writeManifest?: boolean;
}

/** Leases a deployed chain set from the pool at `poolUrl`; `stop()` releases it (idempotent). */
export async function leaseLocalChains(poolUrl: string, options: LeaseOptions = {}): Promise<LocalChains> {
  const started = performance.now();
  const response = await fetch(`${poolUrl}/lease`, { method: "POST" });
  if (!response.ok)
    throw new Error(`chain pool: lease failed (${response.status}: ${await response.text()})`);
  const set = (await response.json()) as { id: number; chains: PooledChain[] };
  const wanted: readonly KnownNetworkName[] = options.networks ?? LOCAL_CHAIN_NETWORKS;
  const chains: LocalChain[] = set.chains
    .filter((chain) => wanted.includes(chain.network))
    .sort((a, b) => wanted.indexOf(a.network) - wanted.indexOf(b.network))
    .map((chain) => ({ ...chain, provider: httpProvider(chain.rpcUrl) }));
  const manifest = buildManifest(chains);
  const manifestPath =
    (options.writeManifest ?? true) && options.dataDir
      ? writeManifestFile(path.resolve(options.dataDir), manifest)
      : undefined;
  let released: Promise<void> | undefined;
  return {
    manifest,
    ...(manifestPath ? { manifestPath } : {}),
    chains,
    startupMs: Math.round(performance.now() - started),
    stop() {
      released ??= fetch(`${poolUrl}/release/${set.id}`, { method: "POST" }).then(async (answer) => {
        if (!answer.ok) throw new Error(`chain pool: release of set ${set.id} failed (${answer.status})`);
      });
      return released;
    },
  };
}

const SHARED = Symbol.for("tollgate.chain-pool");
type SharedPool = { pool: Promise<ChainPool>; users: number };

/**
 * The one pool of this process, shared by every vitest project whose global setup asks for it (each project loads
 * its setup file separately, so the pool lives on `globalThis`); the last user's `release` stops it.
 */
export async function sharedChainPool(): Promise<{ url: string; release(): Promise<void> }> {
  const holder = globalThis as { [SHARED]?: SharedPool };
  holder[SHARED] ??= { pool: startChainPool(), users: 0 };
  const shared = holder[SHARED];
  shared.users += 1;
  const pool = await shared.pool;
  let released = false;
  return {
    url: pool.url,
    async release() {
      if (released) return;
      released = true;
      shared.users -= 1;
      if (shared.users > 0) return;
      delete holder[SHARED];
      await pool.stop();
    },
  };
}

/**
 * Deployed local chains for a test file: leased from the run's pool when `env` names one (chain-pool-setup.ts),
 * otherwise started on free ports for this file alone. Either way `stop()` is the file's last word on them.
 */
export function localChainsForTest(
  env: Readonly<Record<string, string | undefined>>,
  options: LeaseOptions = {},
): Promise<LocalChains> {
  const poolUrl = chainPoolUrl(env);
  return poolUrl ? leaseLocalChains(poolUrl, options) : startLocalChains({ basePort: 0, ...options });
}
