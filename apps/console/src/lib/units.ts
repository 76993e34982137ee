/** Token amounts for people: exact base units (bigint) shown in whole units, for both consoles. */

const DECIMALS: Record<string, number> = { USDC: 6, USDT: 6 };

/** Decimals of an asset symbol: 6 for the stablecoins, 18 for native coins and anything unknown. */
export function decimalsOf(asset: string | null): number {
  return asset && Object.hasOwn(DECIMALS, asset) ? (DECIMALS[asset] ?? 18) : 18;
}

/** Base units as a decimal string, exact (bigint), trimmed of trailing zeros. */
export function formatUnits(base: string, asset: string | null): string {
  const decimals = decimalsOf(asset);
  let value: bigint;
  try {
    value = BigInt(base);
  } catch {
    return base;
  }
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const fraction = (abs % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${abs / scale}${fraction ? `.${fraction}` : ""}`;
}
