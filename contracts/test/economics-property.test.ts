/**
 * Property test (SPEC §2.10, DESIGN §4): packages/shared/src/economics.ts and the deployed splitters
 * agree on every leg for >= 10,000 generated amounts PER PROFILE. Each amount is paid for real through
 * the contracts (a BatchPayer helper pays a few hundred times per transaction so this stays fast) and
 * checked three ways: the decoded Payment event legs, the balance of a fresh merchant / ip-creator
 * address per payment, and the aggregate treasury, payer and splitter balance deltas per asset.
 * Amounts the economics module flags invalid must revert on-chain (checked with eth_call).
 */
import { splitterV14Abi } from "@tollgate/shared/abi/index";
import { orderIdHash, SPLITTER_V14_ROUTES, type SplitterV14Quote } from "@tollgate/shared/contracts";
import {
  type EconomicsProfileId,
  type Split,
  splitByBps,
  splitFromPrice,
  splitTotal,
} from "@tollgate/shared/economics";
import { type Abi, type Address, getAddress, type Hex, keccak256, maxUint256, stringToHex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { deployArtifact, LOCAL_ROLES, readArtifact } from "../src/deploy";
import {
  A,
  deployFixture,
  expectRevert,
  type Fixture,
  rpc,
  setBalance,
  splitterPayments,
  write,
  ZERO,
} from "./helpers";

/** Amounts per profile (override with ECONOMICS_PROPERTY_N for a quick local run). */
const N = Number(process.env.ECONOMICS_PROPERTY_N ?? 10_000);
/** Payments per transaction: EDR slows down super-linearly on very large transactions. */
const BATCH = Number(process.env.ECONOMICS_PROPERTY_BATCH ?? 100);
const TX_GAS = 950_000_000n;
const OWNER = A[0]!;
const TREASURY = LOCAL_ROLES.treasury;

let f: Fixture;
let batchPayer: Address;
let batchAbi: Abi;

beforeAll(async () => {
  f = await deployFixture({ enableAifp2: true, fast: true });
  batchPayer = (await deployArtifact(f, OWNER, "BatchPayer", [])).address;
  batchAbi = readArtifact("BatchPayer").abi;
  await setBalance(f.provider, batchPayer, 2n ** 250n);
  const mintAbi = [
    {
      type: "function",
      name: "mint",
      stateMutability: "nonpayable",
      inputs: [
        { name: "to", type: "address" },
        { name: "amount", type: "uint256" },
      ],
      outputs: [],
    },
  ] as const;
  for (const token of [f.usdc, f.usdt]) {
    await write(f, {
      address: token,
      abi: mintAbi,
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
});

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
function amounts(seed: bigint, count: number, maxBits: number): bigint[] {
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
function freshAddress(tag: string, k: number): Address {
  return getAddress(`0x${keccak256(stringToHex(`${tag}:${k}`)).slice(26)}`);
}

// ------------------------------------------------------------------ shared verification

interface Item {
  orderId: string;
  token: Address; // zero = native
  merchant: Address;
  ipCreator: Address;
  expected: Split;
}

async function balancesOf(token: Address, who: Address[]): Promise<bigint[]> {
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

const ASSETS = () => [ZERO, f.usdc, f.usdt] as Address[];

async function snapshotAggregates(splitter: Address) {
  const out = new Map<Address, { treasury: bigint; payer: bigint; splitter: bigint }>();
  for (const asset of ASSETS()) {
    const [treasury, payer, held] = await balancesOf(asset, [TREASURY, batchPayer, splitter]);
    out.set(asset, { treasury: treasury!, payer: payer!, splitter: held! });
  }
  return out;
}

/** Checks events (per batch), per-payment recipient balances and per-asset aggregates. */
async function verifyRun(
  splitter: Address,
  items: Item[],
  before: Awaited<ReturnType<typeof snapshotAggregates>>,
  sendBatch: (batch: Item[]) => Promise<Hex>,
) {
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
  for (const asset of ASSETS()) {
    const mine = items.filter((it) => it.token === asset);
    if (mine.length === 0) continue;
    const merchants = await balancesOf(
      asset,
      mine.map((it) => it.merchant),
    );
    const withIp = mine.filter((it) => it.ipCreator !== ZERO);
    const ips = await balancesOf(
      asset,
      withIp.map((it) => it.ipCreator),
    );
    const badMerchant = mine.findIndex((it, k) => merchants[k] !== it.expected.merchant);
    expect(badMerchant, `merchant balance of ${mine[badMerchant]?.orderId}`).toBe(-1);
    const badIp = withIp.findIndex((it, k) => ips[k] !== it.expected.ipCreator);
    expect(badIp, `ip creator balance of ${withIp[badIp]?.orderId}`).toBe(-1);
  }
  const after = await snapshotAggregates(splitter);
  for (const asset of ASSETS()) {
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

// ------------------------------------------------------------------ v1.4 profiles (aifp1, aifp2)

async function runV14(profile: EconomicsProfileId, route: "aifp1" | "aifp2", seed: bigint) {
  const all = amounts(seed, N, 200);
  const validUntil = 2n ** 40n;
  const items: (Item & { quote: SplitterV14Quote })[] = [];
  const invalid: { quote: SplitterV14Quote; orderId: string; reason: string }[] = [];
  for (const [k, amount] of all.entries()) {
    const orderId = `${route}-${k}`;
    const token = [ZERO, f.usdc, f.usdt][k % 3]!;
    // Stable amounts stay within the minted supply; native within the helper's balance.
    const ipCreator = k % 2 === 0 ? freshAddress(`${route}-ip`, k) : ZERO;
    const merchant = freshAddress(`${route}-m`, k);
    const quote: SplitterV14Quote = {
      payer: batchPayer,
      merchant,
      token,
      grossAmount: amount,
      ipCreator,
      validUntil,
      orderIdHash: orderIdHash(orderId),
      routeId: SPLITTER_V14_ROUTES[route],
    };
    const expected = splitTotal(profile, amount, { hasIpCreator: ipCreator !== ZERO });
    if (expected.valid) items.push({ orderId, token, merchant, ipCreator, expected, quote });
    else
      invalid.push({
        quote,
        orderId,
        reason: expected.reason === "zero_amount" ? "ZeroAmount" : "FeeLegRoundsToZero",
      });
  }
  expect(items.length + invalid.length).toBe(N);

  // Quotes are signed by the signer role's key inside the node (EDR), about 3x faster than JS.
  const sigs = new Map<string, Hex>();
  for (const it of [...items, ...invalid]) {
    const typed = {
      domain: { name: "TollgateSplitter", version: "1.4", chainId: 31337, verifyingContract: f.v14 },
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
        Quote: [
          { name: "payer", type: "address" },
          { name: "merchant", type: "address" },
          { name: "token", type: "address" },
          { name: "grossAmount", type: "uint256" },
          { name: "ipCreator", type: "address" },
          { name: "validUntil", type: "uint256" },
          { name: "orderIdHash", type: "bytes32" },
          { name: "routeId", type: "bytes32" },
        ],
      },
      primaryType: "Quote",
      message: {
        ...it.quote,
        grossAmount: it.quote.grossAmount.toString(),
        validUntil: it.quote.validUntil.toString(),
      },
    };
    sigs.set(
      it.orderId,
      (await rpc(f.provider, "eth_signTypedData_v4", [
        LOCAL_ROLES.quoteSigner,
        JSON.stringify(typed),
      ])) as Hex,
    );
  }

  for (const bad of invalid) {
    await expectRevert(
      f.publicClient.simulateContract({
        address: f.v14,
        abi: splitterV14Abi,
        functionName: bad.quote.token === ZERO ? "settleNative" : "settleStable",
        args: [bad.quote, bad.orderId, sigs.get(bad.orderId)!],
        account: batchPayer,
        ...(bad.quote.token === ZERO ? { value: bad.quote.grossAmount } : {}),
      } as Parameters<typeof f.publicClient.simulateContract>[0]),
      bad.reason,
    );
  }

  const before = await snapshotAggregates(f.v14);
  await verifyRun(f.v14, items, before, (batch) =>
    f.walletClient.writeContract({
      address: batchPayer,
      abi: batchAbi,
      functionName: "settleV14",
      args: [
        f.v14,
        batch.map((b) => (b as (typeof items)[number]).quote),
        batch.map((b) => b.orderId),
        batch.map((b) => sigs.get(b.orderId)!),
      ],
      account: OWNER,
      chain: f.chain,
      gas: TX_GAS,
    }),
  );
  return { paid: items.length, reverted: invalid.length };
}

// ------------------------------------------------------------------ v1.2 fee-on-top (and aifp1 on v1.2)

async function runV12(seed: bigint) {
  const prices = amounts(seed, N, 200).map((p) => (p === 0n ? 1n : p));
  const items: Item[] = [];
  for (const [k, price] of prices.entries()) {
    const orderId = `v12-${k}`;
    const token = [ZERO, f.usdc, f.usdt][k % 3]!;
    const ipCreator = k % 4 !== 3 ? freshAddress("v12-ip", k) : ZERO;
    const hasIpCreator = ipCreator !== ZERO;
    const expected = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", price, { hasIpCreator });
    expect(expected.valid).toBe(true);
    expect(expected.merchant >= price).toBe(true);
    // With no ip creator v1.2 is exactly aifp1 (DESIGN §4).
    if (!hasIpCreator) expect(splitTotal("aifp1-gross-inclusive-100-0-v1", expected.total)).toEqual(expected);
    items.push({ orderId, token, merchant: freshAddress("v12-m", k), ipCreator, expected });
  }

  // Minimality, asked of the contract itself: total-1 and total-2 either revert or leave less than the price.
  for (let k = 0; k < items.length; k += 2_000) {
    const chunk = items.slice(k, k + 2_000);
    for (const minus of [1n, 2n]) {
      const [ok, merchantAmounts] = (await f.publicClient.readContract({
        address: batchPayer,
        abi: batchAbi,
        functionName: "splitOfV12Batch",
        args: [f.v12, chunk.map((it) => it.expected.total - minus), chunk.map((it) => it.ipCreator !== ZERO)],
      })) as [boolean[], bigint[]];
      chunk.forEach((it, j) => {
        const price = prices[k + j]!;
        const smaller = splitByBps(it.expected.total - minus, 100n, 1n, it.ipCreator !== ZERO);
        expect(ok[j]).toBe(smaller.valid);
        if (ok[j] && merchantAmounts[j]! >= price)
          expect({ price, total: it.expected.total, minus }).toBe("minimal");
      });
    }
  }

  // payV12Native / payV12Stable take one asset per batch: run each asset group on its own.
  for (const asset of ASSETS()) {
    const group = items.filter((it) => it.token === asset);
    const before = await snapshotAggregates(f.v12);
    await verifyRun(f.v12, group, before, (batch) => {
      const rows = batch.map((b) => ({
        amount: b.expected.total,
        merchant: b.merchant,
        ipCreator: b.ipCreator,
        orderId: b.orderId,
      }));
      return f.walletClient.writeContract({
        address: batchPayer,
        abi: batchAbi,
        functionName: asset === ZERO ? "payV12Native" : "payV12Stable",
        args: asset === ZERO ? [f.v12, rows] : [f.v12, asset, rows],
        account: OWNER,
        chain: f.chain,
        gas: TX_GAS,
      });
    });
  }
  return { paid: items.length };
}

describe(`economics vs deployed contracts (${N} amounts per profile)`, () => {
  it("aifp1-gross-inclusive-100-0-v1 on SplitterV14 route aifp1", async () => {
    const r = await runV14("aifp1-gross-inclusive-100-0-v1", "aifp1", 0xa1f1n);
    expect(r.paid + r.reverted).toBe(N);
    expect(r.paid).toBeGreaterThan(N * 0.9);
  });

  it("aifp2-provider-preserving-0-v1 on SplitterV14 route aifp2", async () => {
    const r = await runV14("aifp2-provider-preserving-0-v1", "aifp2", 0xa1f2n);
    expect(r.paid + r.reverted).toBe(N);
  });

  it("legacy v1.2 fee-on-top: smallest total leaving the merchant >= price, legs as paid", async () => {
    const r = await runV12(0x1e6a_c1n);
    expect(r.paid).toBe(N);
  });
});
