/**
 * Service-side time of one paid call (DESIGN §11 `pnpm bench`): quote + pay + gated request, with the chain's block
 * time excluded (the settlement transaction is sent between the timed phases). A plain request to the same
 * merchant server is measured in the same run as the baseline.
 * The limit, "one DB write + one RPC read" (the least a paid call must do), is measured in the same loop: a raw
 * single-row INSERT on the API's own database client (no drizzle, no transaction block) and a raw
 * `eth_getTransactionReceipt` of the call's own transaction over the same HTTP RPC with the API's own RPC client
 * (@tollgate/outbound `rpcFetch`). The table prints the service's time beyond that limit and the ratio to it.
 * Load-independent figures beside the times: RPC requests the API sent per /v1/pay (counted on undici's diagnostics
 * channel), and the process's CPU per /v1/pay. By default the chain runs in a child process, as a remote node would,
 * and its CPU is not counted; BENCH_CHAIN=inline runs it in this process (as before 2026-11-27), where its work
 * shares the API's event loop. Goal (docs/performance.md): service total p50 < 15 ms, p99 < 40 ms on PGlite and
 * PostgreSQL.
 * Run: pnpm exec tsx bench/paid-call.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { registrationBody, startTestApi, testDatabaseKinds } from "@tollgate/api/testing";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";

import { gate } from "@tollgate/gate";
import { express } from "@tollgate/gate/testing";
import { rpcFetch } from "@tollgate/outbound";
import { countRpcRequests, percentile, startChainProcess, table, timedPaidCall, writeResults } from "./lib";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
// Calls made before the measured ones, per database. The first ~80 calls of a fresh process run on code V8 (and
// PGlite's WebAssembly) has not optimised yet, 1.5-2x slower than later ones: the measured calls are a warm
// service's; the warm-up's first calls are reported on a row of their own ("cold").
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const COLD_CALLS = Math.min(40, WARMUP);
const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-paid-"));
// The chain runs in a process of its own by default, as a remote node would (BENCH_CHAIN=inline: in this process,
// as before 2026-11-27, where its work shares the API's event loop and counts in the API's CPU per pay).
const CHAIN_MODE = process.env.BENCH_CHAIN === "inline" ? "inline" : "process";
const chains =
  CHAIN_MODE === "inline"
    ? await startTestChains(dataDir, ["amoy"]).then((started) => ({
        chain: started.chains[0]!,
        stop: started.stop,
      }))
    : await startChainProcess(dataDir, "amoy");
const chain = chains.chain;
const agent = agentOn(chain, 15);
const rows: Record<string, string | number>[] = [];
const limits: Record<string, unknown>[] = [];
const loadStart = loadavg();

// Counts the JSON-RPC requests (HTTP POSTs, a batch counting once) the API sends to the chain while a pay is timed.
const rpc = countRpcRequests(chain.rpcUrl);

/** One raw single-row INSERT on the database's own client, in autocommit: the "one DB write" of the limit. */
async function rawWriter(
  kind: "pglite" | "postgres",
  db: unknown,
): Promise<(id: string) => Promise<unknown>> {
  const client = (db as { $client: unknown }).$client;
  const run =
    kind === "postgres"
      ? (query: string, params: unknown[]) =>
          (client as { unsafe(query: string, params: unknown[]): Promise<unknown> }).unsafe(query, params)
      : (query: string, params: unknown[]) =>
          (client as { query(query: string, params: unknown[]): Promise<unknown> }).query(query, params);
  await run("create table bench_write_probe (id text primary key, at timestamptz not null)", []);
  return (id) => run("insert into bench_write_probe (id, at) values ($1, now())", [id]);
}

const rawRead = (hash: string) =>
  rpcFetch(chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [hash] }),
  });

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const p50 = (xs: number[]) => percentile(sorted(xs), 50);
const p99 = (xs: number[]) => percentile(sorted(xs), 99);

try {
  for (const kind of testDatabaseKinds()) {
    const api = await startTestApi(kind, {
      DATA_DIR: dataDir,
      CONFIRMATIONS_AMOY: "1",
      RATE_LIMIT_QUOTES_PER_MINUTE: "1000000",
      RATE_LIMIT_PAYS_PER_MINUTE: "1000000",
    });
    const write = await rawWriter(kind, api.deps.db.db);
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test" }),
    });
    const merchantId = String(created.json.merchant_id);
    const app = express();
    app.get("/plain", (_req, res) => {
      res.json({ ok: true });
    });
    app.get("/v1/search", gate({ merchantId, tier: "standard", apiBaseUrl: api.baseUrl }), (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const shop = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const phases: Record<string, number[]> = {
      quote: [],
      pay: [],
      "gated request": [],
      "service total": [],
      "plain request": [],
      "raw DB write": [],
      "raw RPC read": [],
      "limit (write + read)": [],
    };
    const cpuPerPay: number[] = [];
    const cold: number[] = [];
    let rpcPerPay = 0;
    try {
      for (let i = 0; i < ITERATIONS + WARMUP; i++) {
        const warmup = i < WARMUP;
        let payCpu: NodeJS.CpuUsage = { user: 0, system: 0 };
        // RPC requests and process CPU cover /v1/pay alone: started just before its window, read just after.
        const countPay = () => {
          rpc.requests = 0;
          rpc.counting = true;
          const cpu = process.cpuUsage();
          return () => {
            payCpu = process.cpuUsage(cpu);
            rpc.counting = false;
          };
        };
        const call = await timedPaidCall<{ receipt: string }>(
          api.baseUrl,
          merchantId,
          agent,
          (quote) => `bench-${quote.quote_id}`,
          countPay,
        );
        const { quote, tx, quoteMs, payMs } = call;
        const { receipt } = call.json;
        let t = performance.now();
        const gated = await fetch(`${shop}/v1/search`, { headers: { "AIFP-Receipt": receipt } });
        await gated.arrayBuffer();
        const gatedMs = performance.now() - t;
        if (gated.status !== 200) throw new Error(`gated request answered ${gated.status}`);
        t = performance.now();
        await (await fetch(`${shop}/plain`)).arrayBuffer();
        const plainMs = performance.now() - t;
        // The limit, in the same loop: one raw write and one raw read of this call's transaction.
        t = performance.now();
        await write(`probe-${quote.quote_id}`);
        const writeMs = performance.now() - t;
        t = performance.now();
        const read = await rawRead(tx);
        await read.arrayBuffer();
        const readMs = performance.now() - t;
        if (warmup) {
          if (i < COLD_CALLS) cold.push(quoteMs + payMs + gatedMs);
          continue;
        }
        phases.quote!.push(quoteMs);
        phases.pay!.push(payMs);
        phases["gated request"]!.push(gatedMs);
        phases["service total"]!.push(quoteMs + payMs + gatedMs);
        phases["plain request"]!.push(plainMs);
        phases["raw DB write"]!.push(writeMs);
        phases["raw RPC read"]!.push(readMs);
        phases["limit (write + read)"]!.push(writeMs + readMs);
        cpuPerPay.push((payCpu.user + payCpu.system) / 1000);
        rpcPerPay += rpc.requests / ITERATIONS;
      }
    } finally {
      server.closeAllConnections();
      server.close();
      await api.close();
    }
    for (const [phase, samples] of Object.entries(phases)) {
      rows.push({
        database: kind,
        phase,
        "p50 ms": p50(samples),
        "p99 ms": p99(samples),
        samples: samples.length,
      });
    }
    if (cold.length > 0) {
      rows.push({
        database: kind,
        phase: `service total, cold (first ${cold.length} calls)`,
        "p50 ms": p50(cold),
        "p99 ms": p99(cold),
        samples: cold.length,
      });
    }
    const limit = phases["limit (write + read)"]!;
    const total = phases["service total"]!;
    const pay = phases.pay!;
    limits.push({
      database: kind,
      "limit p50 ms": p50(limit),
      "total beyond limit p50 ms": p50(total) - p50(limit),
      "total / limit p50": p50(total) / p50(limit),
      "pay beyond limit p50 ms": p50(pay) - p50(limit),
      "pay / limit p50": p50(pay) / p50(limit),
      "RPC requests per pay": rpcPerPay,
      "CPU ms per pay p50": p50(cpuPerPay),
      "goal met (p50 < 15, p99 < 40)": p50(total) < 15 && p99(total) < 40 ? "yes" : "no",
    });
  }
} finally {
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(
  `\nOne paid call, service side (sequential, ${ITERATIONS} calls after ${WARMUP} warm-up calls; tx send and mining excluded; chain: ${CHAIN_MODE})\n`,
);
console.log(table(rows));
console.log(
  "\nAgainst the limit, a paid call's floor (one raw DB write + one raw eth_getTransactionReceipt, same loop)\n",
);
console.log(table(limits as Record<string, string | number>[]));
console.log(
  `results: ${writeResults("paid-call", { iterations: ITERATIONS, warmup: WARMUP, chain: CHAIN_MODE, load_start: loadStart, rows, limits })}`,
);
