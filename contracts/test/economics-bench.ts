/**
 * Shared bench of the economics property tests (economics-property.*.test.ts, SPEC §2.10, DESIGN §4): a fast
 * in-process network with a BatchPayer helper that pays a few hundred times per transaction, a deterministic
 * amount generator, and the three-way verification (decoded Payment event legs, the balance of a fresh
 * merchant / ip-creator address per payment, and the aggregate treasury, payer and splitter deltas per asset).
 */
import { testUsdcAbi, testUsdtAbi } from "@tollgate/shared/abi/index";
import type { Split } from "@tollgate/shared/economics";
import { type Abi, type Address, getAddress, type Hex, keccak256, maxUint256, stringToHex } from "viem";
import { beforeAll, expect } from "vitest";
import { deployArtifact, LOCAL_ROLES, readArtifact } from "../src/deploy";
import { A, deployFixture, type Fixture, setBalance, splitterPayments, write, ZERO } from "./helpers";

/** Amounts per profile (override with ECONOMICS_PROPERTY_N for a quick local run). */
export const N = Number(process.env.ECONOMICS_PROPERTY_N ?? 10_000);
/** Payments per transaction: EDR slows down super-linearly on very large transactions. */
const BATCH = Number(process.env.ECONOMICS_PROPERTY_BATCH ?? 100);
const TX_GAS = 950_000_000n;
const OWNER = A[0]!;
const TREASURY = LOCAL_ROLES.treasury;

export interface Bench {
  f: Fixture;
  /** Pays (and reads balances) in bulk; holds the native coin and tokens it pays with. */
  batchPayer: Address;
  batchAbi: Abi;
}

/** This test file's bench: set by `setupBench` before the first test. */
export let bench: Bench;

/** Registers the file's hook: the bench is deployed once per test file. */
export function setupBench(): void {
  beforeAll(async () => {
    bench = await deployBench();
  });
}

/** Deploys the fixture (aifp2 enabled) and a funded BatchPayer approved on both splitters for both tokens. */
async function deployBench(): Promise<Bench> {
  const f = await deployFixture({ enableAifp2: true, fast: true });
  const batchPayer = (await deployArtifact(f, OWNER, "BatchPayer", [])).address;
  const batchAbi = readArtifact("BatchPayer").abi;
  await setBalance(f.provider, batchPayer, 2n ** 250n);
  for (const token of [f.usdc, f.usdt]) {
    await write(f, {
      address: token,
      abi: token === f.usdc ? testUsdcAbi : testUsdtAbi,
      functionName: "mint",
      args: [batchPayer, 2n ** 250n],
      account: OWNER,
    });
    for (const splitter of [f.v12, f.v14]) {
      await write(f, {
        address: batchPayer,
        abi: batchAbi,
        functionName: "approve",
        args: [token, splitter, maxUint256],
        account: OWNER,
      });
    }
  }
  return { f, batchPayer, batchAbi };
}

// ------------------------------------------------------------------ deterministic amount generator

/** 64-bit SplitMix, deterministic per seed so a failure is reproducible. */
function rng(seed: bigint) {
  let state = seed;
  const M = (1n << 64n) - 1n;
  const next64 = () => {
    state = (state + 0x9e3779b97f4a7c15n) & M;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
  const below = (n: bigint) => next64() % n;
  const bits = (b: number) => {
    let v = 0n;
    for (let k = 0; k < b; k += 64) v = (v << 64n) | next64();
    return v & ((1n << BigInt(b)) - 1n);
  };
  return { below, bits };
}

/**
 * Mixes the amounts where rounding bites: small values, values around multiples of 100 / 10,000 /
 * 9,899 / 9,900, round decimals, and random magnitudes up to 2^maxBits.
 */
export function amounts(seed: bigint, count: number, maxBits: number): bigint[] {
  const r = rng(seed);
  const out: bigint[] = [];
  for (let k = 0; k < count; k++) {
    const kind = Number(r.below(8n));
    let v: bigint;
    if (kind === 0) v = 1n + r.below(20_000n);
    else if (kind === 1) v = (1n + r.below(1_000n)) * 100n + r.below(5n) - 2n;
    else if (kind === 2) v = (1n + r.below(1_000n)) * 10_000n + r.below(7n) - 3n;
    else if (kind === 3)
      v = (1n + r.below(5_000n)) * (r.below(2n) === 0n ? 9_899n : 9_900n) + r.below(5n) - 2n;
    else if (kind === 4) v = 10n ** r.below(31n) * (1n + r.below(9n));
    else if (kind === 5 || kind === 6) v = r.bits(1 + Number(r.below(64n)));
    else v = r.bits(1 + Number(r.below(BigInt(maxBits))));
    out.push(v < 0n ? 0n : v);
  }
  return out;
}

/** A fresh, never-used address per (tag, index): its balance after the run is exactly what it received. */
export function freshAddress(tag: string, k: number): Address {
  return getAddress(`0x${keccak256(stringToHex(`${tag}:${k}`)).slice(26)}`);
}

// ------------------------------------------------------------------ shared verification

export interface Item {
  orderId: string;
  token: Address; // zero = native
  merchant: Address;
  ipCreator: Address;
  expected: Split;
}

async function balancesOf(bench: Bench, token: Address, who: Address[]): Promise<bigint[]> {
  const { f, batchPayer, batchAbi } = bench;
  const out: bigint[] = [];
  for (let k = 0; k < who.length; k += 2_000) {
    const chunk = who.slice(k, k + 2_000);
    const res = (await f.publicClient.readContract({
      address: batchPayer,
      abi: batchAbi,
      functionName: token === ZERO ? "nativeBalances" : "tokenBalances",
      args: token === ZERO ? [chunk] : [token, chunk],
    })) as bigint[];
    out.push(...res);
  }
  return out;
}

/** Native coin, USDC and USDT: the assets every run pays in. */
export const assets = (bench: Bench) => [ZERO, bench.f.usdc, bench.f.usdt] as Address[];

async function snapshotAggregates(bench: Bench, splitter: Address) {
  const out = new Map<Address, { treasury: bigint; payer: bigint; splitter: bigint }>();
  for (const asset of assets(bench)) {
    const [treasury, payer, held] = await balancesOf(bench, asset, [TREASURY, bench.batchPayer, splitter]);
    out.set(asset, { treasury: treasury!, payer: payer!, splitter: held! });
  }
  return out;
}

/** One BatchPayer transaction from the owner, with room for a few hundred payments. */
export function sendBatchCall(bench: Bench, functionName: string, args: readonly unknown[]): Promise<Hex> {
  const { f, batchPayer, batchAbi } = bench;
  return f.walletClient.writeContract({
    address: batchPayer,
    abi: batchAbi,
    functionName,
    args,
    account: OWNER,
    chain: f.chain,
    gas: TX_GAS,
  });
}

/**
 * Pays `items` through `splitter` in batches of `sendBatch`, then checks events (per batch), per-payment recipient
 * balances and per-asset aggregates against the balances read just before.
 */
export async function verifyRun(
  bench: Bench,
  splitter: Address,
  items: Item[],
  sendBatch: (batch: Item[]) => Promise<Hex>,
) {
  const { f, batchPayer } = bench;
  const before = await snapshotAggregates(bench, splitter);
  for (let k = 0; k < items.length; k += BATCH) {
    const batch = items.slice(k, k + BATCH);
    const hash = await sendBatch(batch);
    const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const logs = splitterPayments(receipt, splitter);
    expect(logs.length).toBe(batch.length);
    for (const [j, log] of logs.entries()) {
      const it = batch[j]!;
      const got = {
        orderId: log.orderId,
        payer: log.payer,
        merchant: log.merchant,
        token: log.token,
        total: log.totalAmount,
        merchantLeg: log.merchantAmount,
        treasuryLeg: log.treasuryAmount,
        ipLeg: log.ipCreatorAmount,
      };
      const want = {
        orderId: it.orderId,
        payer: batchPayer,
        merchant: it.merchant,
        token: it.token,
        total: it.expected.total,
        merchantLeg: it.expected.merchant,
        treasuryLeg: it.expected.treasury,
        ipLeg: it.expected.ipCreator,
      };
      // Only build a diff when something differs (keeps 10,000 comparisons cheap).
      if (JSON.stringify(got, big) !== JSON.stringify(want, big)) expect(got).toEqual(want);
    }
  }
  for (const asset of assets(bench)) {
    const mine = items.filter((it) => it.token === asset);
    if (mine.length === 0) continue;
    const merchants = await balancesOf(
      bench,
      asset,
      mine.map((it) => it.merchant),
    );
    const withIp = mine.filter((it) => it.ipCreator !== ZERO);
    const ips = await balancesOf(
      bench,
      asset,
      withIp.map((it) => it.ipCreator),
    );
    const badMerchant = mine.findIndex((it, k) => merchants[k] !== it.expected.merchant);
    expect(badMerchant, `merchant balance of ${mine[badMerchant]?.orderId}`).toBe(-1);
    const badIp = withIp.findIndex((it, k) => ips[k] !== it.expected.ipCreator);
    expect(badIp, `ip creator balance of ${withIp[badIp]?.orderId}`).toBe(-1);
  }
  const after = await snapshotAggregates(bench, splitter);
  for (const asset of assets(bench)) {
    const mine = items.filter((it) => it.token === asset);
    const sum = (pick: (s: Split) => bigint) => mine.reduce((acc, it) => acc + pick(it.expected), 0n);
    const b = before.get(asset)!;
    const a = after.get(asset)!;
    expect(a.treasury - b.treasury).toBe(sum((s) => s.treasury));
    expect(b.payer - a.payer).toBe(sum((s) => s.total));
    expect(a.splitter).toBe(0n); // nothing stranded
    expect(b.splitter).toBe(0n);
  }
}

function big(_key: string, value: unknown) {
  return typeof value === "bigint" ? value.toString() : value;
}
