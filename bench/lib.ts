/** Small helpers shared by the benchmarks: timing, percentiles, a fixed-duration load loop and result files. */
import { spawn } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { type Agent, type LocalChain, payBody, sendSettlement } from "@tollgate/api/testing/chains";
import type { QuoteResponse } from "@tollgate/shared/aifp";
import type { LocalNetworkName } from "@tollgate/shared/networks";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs `fn` from `concurrency` loops for `seconds`; bounded by time, stops by itself. */
export async function load(
  fn: () => Promise<boolean>,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const ok = await fn().catch(() => false);
        latencies.push(performance.now() - t);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

export function table(rows: Record<string, string | number>[]): string {
  const columns = Object.keys(rows[0] ?? {});
  const cell = (value: string | number) =>
    typeof value === "number" ? value.toFixed(value < 10 ? 2 : 0) : value;
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => String(cell(row[column] ?? "")).length)),
  );
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join("  ");
  return [
    line(columns),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((row) => line(columns.map((c) => String(cell(row[c] ?? ""))))),
  ].join("\n");
}

/**
 * Writes a benchmark's figures to bench/results/<name>.json (git-ignored) so two runs can be compared; returns
 * the path. The file also records when it ran, the Node version, the CPU count and the load averages at the end.
 */
export function writeResults(name: string, figures: Record<string, unknown>): string {
  const dir = join(import.meta.dirname, "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const body = {
    name,
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavg: loadavg(),
    ...figures,
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}

/** Whether something listens at `url`'s host and port (a PostgreSQL or Redis server the bench may use). */
export function reachable(url: string, defaultPort: number): Promise<boolean> {
  const target = new URL(url);
  return new Promise<boolean>((resolve) => {
    const socket = connect(Number(target.port || defaultPort), target.hostname);
    socket.setTimeout(2_000);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

export interface ApiProcess {
  baseUrl: string;
  pid: number;
  stdout: () => string;
  stop(): Promise<void>;
}

/**
 * Starts the API as its own OS process, the way production does (`apps/api/src/main.ts` under `node --import tsx`),
 * on `port` with `env` on top of this process's environment; resolves once `/readyz` answers 200.
 */
export async function startApiProcess(port: number, env: Record<string, string>): Promise<ApiProcess> {
  const root = join(import.meta.dirname, "..");
  const child = spawn(process.execPath, ["--import", "tsx", "apps/api/src/main.ts"], {
    cwd: root,
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API process exited ${child.exitCode}:\n${out}`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`API process not ready in 120 s:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseUrl,
    pid: child.pid!,
    stdout: () => out,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A free TCP port on loopback. */

/**
 * Counts the HTTP requests this process sends to `rpcUrl` (one per JSON-RPC request or batch) while `counting` is on.
 * Listens on undici's `undici:request:create` diagnostics channel, which both the global `fetch` and the undici
 * package (the API's RPC client, @tollgate/outbound `rpcFetch`) publish to.
 */
export function countRpcRequests(rpcUrl: string) {
  const target = new URL(rpcUrl);
  const counter = { counting: false, requests: 0 };
  diagnostics.subscribe("undici:request:create", (message) => {
    const { request } = message as { request: { origin?: string | URL; path?: string } };
    if (!counter.counting) return;
    const origin = String(request.origin ?? "").replace(/\/$/, "");
    if (origin === target.origin && (request.path ?? "/").startsWith(target.pathname)) counter.requests++;
  });
  return counter;
}

/**
 * One local chain (contracts deployed, manifest written to `dataDir`) in a child process (bench/chain-process.ts),
 * as a {@link LocalChain} whose provider speaks HTTP JSON-RPC: the chain's CPU stays off this process's event
 * loop, as a remote node's would. `stop()` ends the child.
 */
export async function startChainProcess(
  dataDir: string,
  network: LocalNetworkName,
): Promise<{ chain: LocalChain; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "chain-process.ts"), dataDir, network],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const found = buffered.split("\n").find((text) => text.startsWith("CHAIN "));
      if (found) resolve(found.slice("CHAIN ".length));
    });
    child.once("exit", (code) => reject(new Error(`chain process exited (${code}) before it was ready`)));
  });
  const info = JSON.parse(line) as Omit<LocalChain, "provider">;
  let nextId = 0;
  // EIP-1193 over plain JSON-RPC POSTs (the agent's wallet and reads); errors keep the node's code and data.
  const request = async ({ method, params }: { method: string; params?: unknown }) => {
    const response = await fetch(info.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params: params ?? [] }),
    });
    const body = (await response.json()) as {
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (body.error)
      throw Object.assign(new Error(body.error.message), { code: body.error.code, data: body.error.data });
    return body.result;
  };
  const provider = { request } as unknown as LocalChain["provider"];
  return {
    chain: { ...info, provider },
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export interface TimedPaidCall<T> {
  quote: QuoteResponse;
  /** The settlement transaction. */
  tx: `0x${string}`;
  key: string;
  /** POST /v1/quote, request to parsed body. */
  quoteMs: number;
  /** POST /v1/pay, request to parsed body. */
  payMs: number;
  /** The /v1/pay body (the call threw unless the status was 200). */
  json: T;
}

/**
 * One paid call as the agent makes it, the service's two phases timed apart: POST /v1/quote (timed), the settlement
 * transaction (block time: not measured) and the pay body under the idempotency key `keyFor(quote)` (agent-side
 * signing: not measured), then POST /v1/pay (timed). `aroundPay` runs just before the pay window opens and its
 * result just after it closes, for counters that must cover /v1/pay alone.
 */
export async function timedPaidCall<T>(
  baseUrl: string,
  merchantId: string,
  agent: Agent,
  keyFor: (quote: QuoteResponse) => string,
  aroundPay?: () => () => void,
): Promise<TimedPaidCall<T>> {
  let t = performance.now();
  const quoteResponse = await fetch(`${baseUrl}/v1/quote`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      merchant_id: merchantId,
      resource: "/v1/search",
      tier: "standard",
      payer: agent.address,
    }),
  });
  const quote = (await quoteResponse.json()) as QuoteResponse;
  const quoteMs = performance.now() - t;
  const tx = await sendSettlement(agent, quote.settlement_call);
  const key = keyFor(quote);
  const body = JSON.stringify(await payBody(agent, quote, tx, key));
  const afterPay = aroundPay?.();
  t = performance.now();
  const paid = await fetch(`${baseUrl}/v1/pay`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body,
  });
  const json = (await paid.json()) as T;
  const payMs = performance.now() - t;
  afterPay?.();
  if (paid.status !== 200) throw new Error(`/v1/pay answered ${paid.status}: ${JSON.stringify(json)}`);
  return { quote, tx, key, quoteMs, payMs, json };
}
