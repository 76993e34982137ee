/** Tier rows as edited in the form, and their conversion to the API's tier record or tier patch. */
import type { FieldError } from "@tollgate/shared";

export interface TierRow {
  /** Stable React key; not sent. */
  key: string;
  name: string;
  price: string;
}

let nextKey = 0;
export function newTierRow(name = "", price = ""): TierRow {
  nextKey += 1;
  return { key: `tier-${nextKey}`, name, price };
}

export function rowsFromTiers(tiers: Readonly<Record<string, string>>): TierRow[] {
  return Object.entries(tiers).map(([name, price]) => newTierRow(name, price));
}

/** Registration defaults (packages/shared DEFAULT_TIERS_MICRO_USD). */
export function defaultTierRows(): TierRow[] {
  return [newTierRow("standard", "0.001"), newTierRow("premium", "0.01")];
}

/** Rows left completely blank are ignored; names are trimmed, prices trimmed. */
function filledRows(rows: readonly TierRow[]): { name: string; price: string }[] {
  return rows
    .map((row) => ({ name: row.name.trim(), price: row.price.trim() }))
    .filter((row) => row.name !== "" || row.price !== "");
}

/**
 * Rows as the `{name: price}` record the shared schemas check. Duplicate names would silently collapse in
 * a record, so they are reported here (the one tier rule the schemas cannot see).
 */
export function tiersFromRows(rows: readonly TierRow[]): {
  tiers: Record<string, string>;
  errors: FieldError[];
} {
  const tiers: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const row of filledRows(rows)) {
    if (Object.hasOwn(tiers, row.name)) {
      errors.push({
        path: `tiers.${row.name}`,
        code: "invalid_value",
        message: "this tier name is used twice",
      });
    }
    tiers[row.name] = row.price;
  }
  return { tiers, errors };
}

/** The update patch: changed or new tiers get their price, tiers no longer listed get `null`. */
export function tiersPatch(
  current: Readonly<Record<string, string>>,
  edited: Readonly<Record<string, string>>,
): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const [name, price] of Object.entries(edited)) {
    if (current[name] !== price) patch[name] = price;
  }
  for (const name of Object.keys(current)) {
    if (!Object.hasOwn(edited, name)) patch[name] = null;
  }
  return patch;
}
