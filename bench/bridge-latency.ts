/**
 * Bridge benchmark (SPEC §2.6, §4.2): latency the bridge adds over calling the upstream directly (p50/p99), per rail,
 * with verification served by a warm HTTP RPC on the local amoy chain; and challenge (402) issuance rate on one core.
 * The on-chain payment of each legacy call (and the agent's signing) happens between timed phases and is not
 * measured; the x402 rail includes its settlement transaction (verify -> serve -> settle), mined on the local chain.
 * Baseline for the legacy rail: "the verification read", one raw `eth_getTransactionReceipt` over the same
 * HTTP RPC, timed in the same loop; "legacy beyond direct + read" is legacy p50 - upstream p50 - read p50 (goal < 3 ms).
 * Load-independent beside it: JSON-RPC requests the bridge sent per legacy proof (counted at `fetch`: four
 * before, three once the transaction read was skipped for orders without an ip creator, as here).
 * No assertions: figures only. Run: pnpm exec tsx bench/bridge-latency.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import {
  payMaticWith,
  randomAddress,
  startTestBridge,
  startTestUpstream,
  x402V1Header,
} from "@tollgate/api/testing/bridge";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";
import { rpcFetch } from "@tollgate/outbound";
import { countRpcRequests, load, percentile, table, writeResults } from "./lib";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 60);
const CHALLENGE_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-bridge-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const chain = chains.chains[0]!;
const upstream = await startTestUpstream();
const merchant = randomAddress();
const bridge = await startTestBridge(chains, [
  {
    id: "acme",
    upstream_url: `${upstream.url}/api`,
    api_key: "k",
    price_wei: "1000000000000000",
    price_usdc_units: "150000",
    merchant_wallet: merchant,
  },
]);
const agent = agentOn(chain, 16);
const rows: Record<string, string | number>[] = [];

// Counts the JSON-RPC requests the bridge sends to the chain while a legacy proof is timed.
const rpcCounter = countRpcRequests(chain.rpcUrl);

function summarize(name: string, samples: number[], baseline?: number[]): void {
  samples.sort((a, b) => a - b);
  const p50 = percentile(samples, 50);
  const p99 = percentile(samples, 99);
  const row: Record<string, string | number> = { path: name, "p50 ms": p50, "p99 ms": p99 };
  if (baseline) {
    const sorted = [...baseline].sort((a, b) => a - b);
    row["added p50 ms"] = p50 - percentile(sorted, 50);
    row["added p99 ms"] = p99 - percentile(sorted, 99);
  } else {
    row["added p50 ms"] = "-";
    row["added p99 ms"] = "-";
  }
  row.samples = samples.length;
  rows.push(row);
}

async function timed(fn: () => Promise<Response>): Promise<number> {
  const t = performance.now();
  const response = await fn();
  await response.arrayBuffer();
  const ms = performance.now() - t;
  if (response.status !== 200 && response.status !== 402) throw new Error(`unexpected ${response.status}`);
  return ms;
}

try {
  const direct: number[] = [];
  const legacy: number[] = [];
  const x402: number[] = [];
  const challenge: number[] = [];
  const read: number[] = [];
  let rpcPerProof = 0;
  const rpc = (hash: string) =>
    rpcFetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [hash] }),
    });
  for (let i = 0; i < ITERATIONS + 5; i++) {
    const warmup = i < 5;
    const path = `/search?q=${i}`;
    const d = await timed(() => fetch(`${upstream.url}/api${path}`));
    const c = await timed(() => fetch(`${bridge.url}/acme${path}`));
    // Untimed: a fresh order paid on-chain.
    const offer = (await (await fetch(`${bridge.url}/acme${path}`)).json()) as {
      pay_matic: Record<string, string>;
      accepts: unknown[];
    };
    const hash = await payMaticWith(agent, offer.pay_matic);
    const r = await timed(() => rpc(hash));
    rpcCounter.requests = 0;
    rpcCounter.counting = true;
    const l = await timed(() =>
      fetch(`${bridge.url}/acme${path}`, {
        headers: { "x-tx-hash": hash, "x-order-id": offer.pay_matic.order_id! },
      }),
    );
    rpcCounter.counting = false;
    if (!warmup) rpcPerProof += rpcCounter.requests / ITERATIONS;
    const header = await x402V1Header(agent, offer.accepts[0]);
    const x = await timed(() => fetch(`${bridge.url}/acme${path}`, { headers: { "X-PAYMENT": header } }));
    if (warmup) continue;
    direct.push(d);
    challenge.push(c);
    legacy.push(l);
    read.push(r);
    x402.push(x);
  }
  summarize("upstream direct (baseline)", [...direct]);
  summarize("bridge 402 challenge", [...challenge], direct);
  summarize("verification read (raw eth_getTransactionReceipt)", [...read]);
  summarize("bridge legacy x-tx-hash (verify + claim + forward)", [...legacy], direct);
  const p50 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const p99 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      99,
    );
  const beyond = {
    path: "legacy beyond direct + read (goal < 3 ms p50)",
    "p50 ms": p50(legacy) - p50(direct) - p50(read),
    "p99 ms": p99(legacy) - p99(direct) - p99(read),
    "RPC requests per proof": rpcPerProof,
  };
  summarize("bridge x402 v1 (verify + forward + settle tx)", [...x402], direct);

  const issuance = await load(
    async () => (await fetch(`${bridge.url}/acme/search?q=load`)).status === 402,
    16,
    CHALLENGE_SECONDS,
  );
  console.log(
    `\nBridge added latency over the upstream (sequential, ${ITERATIONS} calls per path; local amoy via HTTP RPC, in-process Hardhat)\n`,
  );
  console.log(table(rows));
  console.log(table([beyond]));
  console.log(
    `\nChallenge issuance (one bridge process = one core; ${cpus().length} cores on this host, in-memory store)\n`,
  );
  console.log(
    table([
      {
        "402/s per core": issuance.rps,
        "p50 ms": issuance.p50Ms,
        "p99 ms": issuance.p99Ms,
        requests: issuance.requests,
        errors: issuance.errors,
        concurrency: 16,
      },
    ]),
  );
  console.log(
    `results: ${writeResults("bridge-latency", { iterations: ITERATIONS, rows, beyond, issuance })}`,
  );
} finally {
  await bridge.close();
  await upstream.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
