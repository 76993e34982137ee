/**
 * PostgreSQL array literals (`{"a","b",NULL}`) for one-parameter-per-column writes (`unnest($1::text[], ...)`).
 * Every element is quoted, so only `"` and `\` need escaping; null is the bare NULL.
 */
const NEEDS_ESCAPE = /["\\]/;

function element(value: string | number | null): string {
  if (value === null) return "NULL";
  const text = String(value);
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(/["\\]/g, "\\$&")}"` : `"${text}"`;
}

export function arrayLiteral(values: readonly (string | number | null)[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) out += (i === 0 ? "" : ",") + element(values[i] ?? null);
  return `${out}}`;
}
