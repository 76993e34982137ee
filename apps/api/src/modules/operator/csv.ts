/**
 * CSV for operator exports (RFC 4180) with formula-injection defence: a cell that a spreadsheet would read as a
 * formula (first character `=`, `+`, `-`, `@`, TAB or CR, OWASP "CSV Injection") is prefixed with `'`, then any
 * cell holding a comma, quote, CR or LF is quoted with inner quotes doubled. Lines end with CRLF.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | bigint | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(
  header: readonly string[],
  rows: readonly (readonly (string | number | bigint | boolean | null | undefined)[])[],
): string {
  return [header, ...rows]
    .map((row) => row.map(csvCell).join(","))
    .join("\r\n")
    .concat("\r\n");
}
