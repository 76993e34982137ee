/**
 * Money helpers (DESIGN.md §5): integers only. USD is held as micro-USD (1 USD = 1_000_000n);
 * on the wire it is a decimal string ("0.1"). Atomic token amounts are bigint, decimal strings on the wire.
 */

export const MICRO_USD_PER_USD = 1_000_000n;
export const USD_DECIMALS = 6;
/** SPEC §1, §8: the smallest payment the service accepts. */
export const MIN_PAYMENT_MICRO_USD = 100_000n;

export type Rounding = "reject" | "floor" | "ceil";

export class MoneyFormatError extends Error {
  override readonly name = "MoneyFormatError";
}

const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal string into an integer number of units with `decimals` places.
 * Extra precision is refused by default (`reject`), or rounded toward zero (`floor`) or away from it (`ceil`).
 * No exponents, signs, spaces or leading zeros are accepted: "0.10" is fine, "00.1", "1e3", "-1", ".5" are not.
 */
export function parseDecimal(text: string, decimals: number, rounding: Rounding = "reject"): bigint {
  const match = DECIMAL.exec(text);
  if (!match) throw new MoneyFormatError(`not a non-negative decimal: ${JSON.stringify(text)}`);
  const whole = match[1] ?? "0";
  const fraction = match[2] ?? "";
  const kept = fraction.slice(0, decimals).padEnd(decimals, "0");
  const dropped = fraction.slice(decimals);
  let value = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(kept === "" ? "0" : kept);
  if (/[1-9]/.test(dropped)) {
    if (rounding === "reject") throw new MoneyFormatError(`more than ${decimals} decimal places: ${text}`);
    if (rounding === "ceil") value += 1n;
  }
  return value;
}

/** Formats an integer amount with `decimals` places as the shortest exact decimal string ("0.1", "12", "0.000001"). */
export function formatDecimal(value: bigint, decimals: number): string {
  if (value < 0n) throw new MoneyFormatError("negative amounts are not money here");
  const scale = 10n ** BigInt(decimals);
  const whole = value / scale;
  const fraction = (value % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

/** "0.1" -> 100000n micro-USD. */
export function parseUsd(text: string, rounding: Rounding = "reject"): bigint {
  return parseDecimal(text, USD_DECIMALS, rounding);
}

/** 100000n micro-USD -> "0.1". */
export function formatUsd(microUsd: bigint): string {
  return formatDecimal(microUsd, USD_DECIMALS);
}

/** Integer division rounded up; both operands positive. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError("denominator must be positive");
  if (numerator <= 0n) return 0n;
  return (numerator + denominator - 1n) / denominator;
}

/**
 * Units a quote must buy so that the payment reaches the minimum (DESIGN.md §5):
 * `max(requested, ceil(min / unit price))`.
 */
export function unitsForMinimum(
  unitPriceMicroUsd: bigint,
  requestedUnits = 1n,
  minimumMicroUsd = MIN_PAYMENT_MICRO_USD,
): bigint {
  if (unitPriceMicroUsd <= 0n) throw new RangeError("unit price must be positive");
  const floorUnits = ceilDiv(minimumMicroUsd, unitPriceMicroUsd);
  return requestedUnits > floorUnits ? requestedUnits : floorUnits;
}

/**
 * Converts micro-USD into atomic units of a token priced at `priceMicroUsdPerToken` (USD per whole token,
 * in micro-USD) with `tokenDecimals`. Rounds up: the payer never pays less than the USD amount.
 */
export function microUsdToAtomic(
  microUsd: bigint,
  tokenDecimals: number,
  priceMicroUsdPerToken: bigint,
): bigint {
  if (priceMicroUsdPerToken <= 0n) throw new RangeError("token price must be positive");
  return ceilDiv(microUsd * 10n ** BigInt(tokenDecimals), priceMicroUsdPerToken);
}
