/**
 * CSV for the API's exports (operator transactions, the merchant's receipts and settlements; RFC 4180) with
 * formula-injection defence: a cell that a spreadsheet would read as a formula (first character `=`, `+`, `-`, `@`, TAB or CR, OWASP "CSV Injection") is prefixed with `'`, then any
 * cell holding a comma, quote, CR or LF is quoted with inner quotes doubled. Lines end with CRLF.
 */
import { z } from "zod";

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

/** A CSV answer of a list endpoint (`rest: { csv: true }`): REST sends `csv` as the text/csv body itself. */
export const ZCsvExport = z.object({
  format: z.literal("csv"),
  filename: z.string(),
  csv: z.string().describe("REST sends this as the text/csv body itself"),
});

/** `<prefix>-YYYYMMDDhhmmss.csv` at `now`: a file name of a fixed prefix and digits, never user input. */
export function csvFilename(prefix: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[^0-9]/g, "")
    .slice(0, 14);
  return `${prefix}-${stamp}.csv`;
}
