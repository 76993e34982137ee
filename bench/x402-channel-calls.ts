/**
 * 1,000 calls by one agent through one `batch-settlement` channel at the bridge (docs/decisions/0092;
 * docs/performance.md "x402 session contracts (gas)"), against `exact` payments measured in the same run, on a leased
 * local amoy chain with the channels in PGlite. The stock `@x402/fetch` client pays every call; the claim worker
 * then claims and sweeps; the client closes the channel with a cooperative refund. Every transaction mined during
 * each phase is counted (the chain is this run's alone) with its gas, named by the escrow function it called.
 * `exact`: BENCH_EXACT_CALLS payments (default 500), one settlement transaction each; when fewer are paid than
 * channel calls, the exact total is scaled linearly to the channel's call count (each exact payment is one
 * independent `transferWithAuthorization`) and the table says so. More than about 550 exact calls fail here: the
 * in-process chain mines one block per payment, each at least a second after the last, so its clock runs ahead of
 * the wall clock past the authorizations' `validBefore` ("the transfer would not succeed"). Figures only, no assertions.
 *   pnpm exec tsx bench/x402-channel-calls.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@tollgate/api/testing";
import {
  randomAddress,
  startTestBridge,
  startTestUpstream,
  stockBatchPayer,
  stockExactPayer,
} from "@tollgate/api/testing/bridge";
import { agentOn, startTestChains } from "@tollgate/api/testing/chains";
import { readArtifact } from "@tollgate/contracts/deploy";
import { X402_CANONICAL_ADDRESSES } from "@tollgate/shared/contracts";
import { type Abi, type Address, decodeFunctionData, type Hex } from "viem";
import { table, writeResults } from "./lib";

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const EXACT_CALLS = Number(process.env.BENCH_EXACT_CALLS ?? 500);
const PRICE = 1_000n;
const NETWORK = "eip155:80002";

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-channel-calls-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const chain = chains.chains[0]!;
const usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
const escrow = (X402_CANONICAL_ADDRESSES.batchSettlement as Address).toLowerCase();
const escrowAbi = readArtifact("X402BatchSettlement").abi as Abi;
const upstream = await startTestUpstream();
const db = await createTestDatabase("pglite");
const bridge = await startTestBridge(
  chains,
  [
    {
      id: "acme",
      upstream_url: `${upstream.url}/api`,
      price_usdc_units: PRICE.toString(),
      merchant_wallet: randomAddress(),
    },
  ],
  {},
  { channels: { database: db } },
);
const client = agentOn(chain, 0).client;

interface Mined {
  what: string;
  gas: bigint;
}

/** Every transaction mined after block `from`: what it called and its gas. */
async function minedSince(from: bigint): Promise<Mined[]> {
  const to = await client.getBlockNumber();
  const mined: Mined[] = [];
  for (let n = from + 1n; n <= to; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      const receipt = await client.getTransactionReceipt({ hash: tx.hash });
      if (receipt.status !== "success") throw new Error(`transaction ${tx.hash} reverted`);
      let what = `to ${tx.to}`;
      if (tx.to?.toLowerCase() === escrow) {
        try {
          const call = decodeFunctionData({ abi: escrowAbi, data: tx.input as Hex });
          what = `escrow ${call.functionName}`;
          // The stock refund sends `multicall([claimWithSignature, refundWithSignature])`: name the inner calls.
          if (call.functionName === "multicall") {
            const inner = (call.args?.[0] ?? []) as Hex[];
            const names = inner.map((data) => decodeFunctionData({ abi: escrowAbi, data }).functionName);
            what = `escrow multicall(${names.join(", ")})`;
          }
        } catch {
          what = "escrow (unknown call)";
        }
      } else if (tx.to?.toLowerCase() === usdc.toLowerCase()) {
        what = `USDC ${tx.input.slice(0, 10)}`;
      }
      mined.push({ what, gas: receipt.gasUsed });
    }
  }
  return mined;
}

async function pay(fetcher: typeof fetch, calls: number, tag: string): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const response = await fetcher(`${bridge.url}/acme/search?${tag}=${i}`);
    const body = await response.text();
    if (response.status !== 200)
      throw new Error(
        `${tag} call ${i} answered ${response.status}: ${body.slice(0, 300)} ${response.headers.get("PAYMENT-RESPONSE") ?? ""}`,
      );
  }
}

// The channel: deposit with the first call, vouchers after, then one claim + sweep, then the cooperative refund.
const payer = stockBatchPayer(agentOn(chain, 18), NETWORK, usdc, PRICE * BigInt(CALLS) * 2n);
const channelStart = await client.getBlockNumber();
let started = performance.now();
await pay(payer.fetch, CALLS, "channel");
const channelCallsSeconds = (performance.now() - started) / 1000;
const [claimRun] = await bridge.router.bridge.runClaims();
if (claimRun?.claims.length !== 1 || claimRun.claims[0]?.state !== "confirmed")
  throw new Error(`expected one confirmed claim, got ${JSON.stringify(claimRun)}`);
const refunded = await payer.scheme.refund(`${bridge.url}/acme/search`);
if (!refunded.success) throw new Error(`refund failed: ${JSON.stringify(refunded)}`);
const channelTxs = await minedSince(channelStart);

// The baseline: exact payments, one settlement each.
const exactStart = await client.getBlockNumber();
const exact = stockExactPayer(agentOn(chain, 19), NETWORK, usdc, PRICE);
started = performance.now();
await pay(exact.fetch, EXACT_CALLS, "exact");
const exactCallsSeconds = (performance.now() - started) / 1000;
const exactTxs = await minedSince(exactStart);

await bridge.close();
await db.close();
await upstream.close();
await chains.stop();
rmSync(dataDir, { recursive: true, force: true });

const sum = (txs: Mined[]) => txs.reduce((total, tx) => total + tx.gas, 0n);
const channelGas = sum(channelTxs);
const exactGas = sum(exactTxs);
const scale = CALLS / EXACT_CALLS;
const exactScaledGas = Number(exactGas) * scale;
const exactScaledTxs = exactTxs.length * scale;
const rows: Record<string, string | number>[] = [
  ...channelTxs.map((tx, i) => ({
    rail: `channel tx ${i + 1}`,
    what: tx.what,
    transactions: "1",
    gas: Number(tx.gas),
  })),
  {
    rail: `channel, ${CALLS} calls`,
    what: "all of the above",
    transactions: String(channelTxs.length),
    gas: Number(channelGas),
    gas_per_call: Number(channelGas) / CALLS,
    x_exact_gas: (Number(channelGas) / exactScaledGas).toFixed(4),
  },
  {
    rail: `exact, ${EXACT_CALLS} calls${scale === 1 ? "" : ` (x${scale} to ${CALLS})`}`,
    what: [...new Set(exactTxs.map((tx) => tx.what))].join(", "),
    transactions: String(exactScaledTxs),
    gas: exactScaledGas,
    gas_per_call: exactScaledGas / CALLS,
    x_exact_gas: "1.0000",
  },
];
console.log(table(rows));
console.log(
  `paid calls: channel ${CALLS} in ${channelCallsSeconds.toFixed(1)} s, exact ${EXACT_CALLS} in ${exactCallsSeconds.toFixed(1)} s`,
);
const file = writeResults("x402-channel-calls", {
  calls: CALLS,
  exactCalls: EXACT_CALLS,
  channel: channelTxs.map((tx) => ({ what: tx.what, gas: Number(tx.gas) })),
  channelGas: Number(channelGas),
  exactTransactions: exactTxs.length,
  exactGas: Number(exactGas),
  gasPerCall: { channel: Number(channelGas) / CALLS, exact: Number(exactGas) / EXACT_CALLS },
});
console.log(`figures: ${file}`);
process.exit(0);
