/**
 * Economics profiles (SPEC §2.10, DESIGN §4, §5): the one TypeScript implementation of every split.
 * It mirrors contracts/contracts/SplitMath.sol exactly: each fee leg is floor(total * bps / 10_000),
 * the merchant gets the remainder, and a fee leg whose bps is non-zero but which rounds to zero makes
 * the split invalid (the contract reverts). Amounts are atomic units, bigint only.
 * Property tests (contracts/test/economics-property.{v14,v12}.test.ts) check every leg against the deployed
 * contracts for >= 10,000 amounts per profile.
 */
import { AppError } from "./errors";

export const BPS_DENOMINATOR = 10_000n;

/** The legacy profile has no id in SPEC §2.10; this is the name used across Tollgate for it. */
export const ECONOMICS_PROFILE_IDS = [
  "aifp1-gross-inclusive-100-0-v1",
  "aifp2-provider-preserving-0-v1",
  "legacy-v12-fee-on-top-100-1-v1",
] as const;
export type EconomicsProfileId = (typeof ECONOMICS_PROFILE_IDS)[number];

export type EconomicsModel = "gross-inclusive" | "provider-preserving" | "fee-on-top";

/** Where a profile's split is executed on-chain (registries are keyed by chain id + version). */
export type ProfileSettlement =
  | { readonly version: "v1.4"; readonly route: "aifp1" | "aifp2" }
  | { readonly version: "v1.2"; readonly ipCreator: "zero" | "any" };

export interface EconomicsProfile {
  readonly id: EconomicsProfileId;
  readonly model: EconomicsModel;
  /** Nominal merchant share when every fee leg applies (the merchant actually gets the remainder). */
  readonly merchantBps: bigint;
  readonly treasuryBps: bigint;
  /** Applies only when an ip creator is set; otherwise that share stays with the merchant. */
  readonly ipCreatorBps: bigint;
  readonly settlement: readonly ProfileSettlement[];
}

export const ECONOMICS_PROFILES: {
  readonly [K in EconomicsProfileId]: EconomicsProfile & { readonly id: K };
} = {
  // Generation-1 quotes: the agent pays exactly the quoted amount. v1.2 with a zero ip creator
  // splits 9900/100/0, i.e. exactly this profile (DESIGN §4).
  "aifp1-gross-inclusive-100-0-v1": {
    id: "aifp1-gross-inclusive-100-0-v1",
    model: "gross-inclusive",
    merchantBps: 9_900n,
    treasuryBps: 100n,
    ipCreatorBps: 0n,
    settlement: [
      { version: "v1.4", route: "aifp1" },
      { version: "v1.2", ipCreator: "zero" },
    ],
  },
  "aifp2-provider-preserving-0-v1": {
    id: "aifp2-provider-preserving-0-v1",
    model: "provider-preserving",
    merchantBps: 10_000n,
    treasuryBps: 0n,
    ipCreatorBps: 0n,
    settlement: [{ version: "v1.4", route: "aifp2" }],
  },
  // Bridge and /api/b2b/* on v1.2 only: the merchant receives (at least) the price, fees on top.
  "legacy-v12-fee-on-top-100-1-v1": {
    id: "legacy-v12-fee-on-top-100-1-v1",
    model: "fee-on-top",
    merchantBps: 9_899n,
    treasuryBps: 100n,
    ipCreatorBps: 1n,
    settlement: [{ version: "v1.2", ipCreator: "any" }],
  },
};

export function isEconomicsProfileId(value: string): value is EconomicsProfileId {
  return (ECONOMICS_PROFILE_IDS as readonly string[]).includes(value);
}

export interface SplitLegs {
  readonly total: bigint;
  readonly merchant: bigint;
  readonly treasury: bigint;
  readonly ipCreator: bigint;
}

export type SplitInvalidReason = "zero_amount" | "negative_amount" | "fee_leg_rounds_to_zero";

/**
 * Legs as the contract computes them. `valid: false` means the contract reverts for this total
 * (SplitMath.ZeroAmount / FeeLegRoundsToZero); the legs are still reported for diagnostics.
 */
export type Split =
  | (SplitLegs & { readonly valid: true })
  | (SplitLegs & {
      readonly valid: false;
      readonly reason: SplitInvalidReason;
      readonly leg?: "treasury" | "ipCreator";
    });

export interface SplitOptions {
  /** Whether a non-zero ip creator address is passed to the contract. Default false (zero address). */
  readonly hasIpCreator?: boolean;
}

/** floor(total * bps / 10_000), exactly as SplitMath.feeLeg. */
export function feeLeg(total: bigint, bps: bigint): bigint {
  return (total * bps) / BPS_DENOMINATOR;
}

/** The raw contract rule for given bps (SplitMath.split). */
export function splitByBps(
  total: bigint,
  treasuryBps: bigint,
  ipCreatorBps: bigint,
  hasIpCreator: boolean,
): Split {
  if (total < 0n)
    return { valid: false, reason: "negative_amount", total, merchant: 0n, treasury: 0n, ipCreator: 0n };
  if (total === 0n)
    return { valid: false, reason: "zero_amount", total, merchant: 0n, treasury: 0n, ipCreator: 0n };
  const treasury = feeLeg(total, treasuryBps);
  const ipCreator = hasIpCreator && ipCreatorBps !== 0n ? feeLeg(total, ipCreatorBps) : 0n;
  const legs = { total, merchant: total - treasury - ipCreator, treasury, ipCreator };
  if (treasuryBps !== 0n && treasury === 0n) {
    return { ...legs, valid: false, reason: "fee_leg_rounds_to_zero", leg: "treasury" };
  }
  if (hasIpCreator && ipCreatorBps !== 0n && ipCreator === 0n) {
    return { ...legs, valid: false, reason: "fee_leg_rounds_to_zero", leg: "ipCreator" };
  }
  return { ...legs, valid: true };
}

/** Splits a payer total under a profile: every leg the contract would transfer. */
export function splitTotal(profile: EconomicsProfileId, total: bigint, opts: SplitOptions = {}): Split {
  const p = ECONOMICS_PROFILES[profile];
  return splitByBps(total, p.treasuryBps, p.ipCreatorBps, opts.hasIpCreator ?? false);
}

/**
 * Legs for a merchant price under a profile.
 * - gross-inclusive / provider-preserving: the payer total IS the price (nothing is added).
 * - fee-on-top (v1.2): the payer total is the SMALLEST total the contract accepts whose split leaves
 *   the merchant at least the price (DESIGN §4). The merchant leg may exceed the price by a few
 *   atomic units because of rounding; with an ip creator the contract accepts totals >= 10,000 only,
 *   so tiny prices get a total of at least 10,000 (SPEC's 0.1 USD minimum keeps real prices far above).
 */
export function splitFromPrice(profile: EconomicsProfileId, price: bigint, opts: SplitOptions = {}): Split {
  const p = ECONOMICS_PROFILES[profile];
  if (p.model !== "fee-on-top") return splitTotal(profile, price, opts);
  if (price <= 0n) return splitTotal(profile, price, opts);
  return feeOnTopSplit(price, p.treasuryBps, p.ipCreatorBps, opts.hasIpCreator ?? false);
}

/** The fee-on-top payer total for a price (see splitFromPrice). */
export function feeOnTopTotal(price: bigint, opts: SplitOptions = {}): bigint {
  const s = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", price, opts);
  if (!s.valid) throw new RangeError(`no fee-on-top total for price ${price}: ${s.reason}`);
  return s.total;
}

function feeOnTopSplit(
  price: bigint,
  treasuryBps: bigint,
  ipCreatorBps: bigint,
  hasIpCreator: boolean,
): Split {
  const feeBps = treasuryBps + (hasIpCreator ? ipCreatorBps : 0n);
  const merchantBps = BPS_DENOMINATOR - feeBps;
  // merchant(t) >= t*merchantBps/10_000 (fees floor), so `hi` always works; merchant(t) < t*merchantBps/10_000 + 2
  // (at most one unit lost per floored leg), so no total below `lo` can work. merchant(t) is not monotonic
  // (it drops by one when two legs step together), hence the scan from `lo` instead of a closed form.
  const hi = ceilDiv(price * BPS_DENOMINATOR, merchantBps);
  let t = price > 2n ? ((price - 2n) * BPS_DENOMINATOR) / merchantBps : 1n;
  // Below `accepted` some non-zero fee leg floors to zero and the contract reverts: skip those totals.
  const accepted = minAcceptedTotal(treasuryBps, hasIpCreator ? ipCreatorBps : 0n);
  if (t < accepted) t = accepted;
  // biome-ignore lint/complexity/useMathMinMax: Math.max does not take bigint.
  const last = hi > accepted ? hi : accepted;
  for (; t <= last; t++) {
    const s = splitByBps(t, treasuryBps, ipCreatorBps, hasIpCreator);
    if (s.valid && s.merchant >= price) return s;
  }
  // Unreachable: at t = max(hi, accepted) every leg is >= 1 and merchant(t) >= t * merchantBps / 10_000 >= price.
  throw new AppError("internal_error", `fee-on-top search did not converge for price ${price}`);
}

/** Smallest total for which every non-zero-bps fee leg is >= 1 (SplitMath accepts it). */
export function minAcceptedTotal(treasuryBps: bigint, ipCreatorBps: bigint): bigint {
  let min = 1n;
  for (const bps of [treasuryBps, ipCreatorBps]) {
    if (bps !== 0n) {
      const need = ceilDiv(BPS_DENOMINATOR, bps);
      if (need > min) min = need;
    }
  }
  return min;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
