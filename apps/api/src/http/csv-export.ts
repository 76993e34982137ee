/**
 * The server side of a list's CSV export (decision 0072): `?format=csv` or `Accept: text/csv` turns a list page into
 * a text/csv answer (REST sends `csv` as the body), with the next page's cursor in `X-Next-Cursor` and the exact
 * count of the filter in `X-Total-Count`, so a client reads every page of one filter and sort.
 */
import { z } from "zod";
import { acceptsCsv } from "../trpc/trpc";

/*
 * RFC 4180 with formula-injection defence: a cell that a spreadsheet would read as a formula (first character `=`,
 * `+`, `-`, `@`, TAB or CR, OWASP "CSV Injection") is prefixed with `'`, then any cell holding a comma, quote, CR or
 * LF is quoted with inner quotes doubled. Lines end with CRLF.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export type CsvValue = string | number | bigint | boolean | null | undefined;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows]
    .map((row) => row.map(csvCell).join(","))
    .join("\r\n")
    .concat("\r\n");
}

/** One CSV column: its header and how a row gives its cell. Header and cell side by side cannot drift apart. */
export type CsvColumn<Row> = readonly [header: string, cell: (row: Row) => CsvValue];

/** Rows as CSV through their columns (toCsv's rules). */
export function csvOf<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  return toCsv(
    columns.map(([header]) => header),
    rows.map((row) => columns.map(([, cell]) => cell(row))),
  );
}

export const ZCsvExport = z.object({
  format: z.literal("csv"),
  filename: z.string(),
  csv: z.string().describe("REST sends this as the text/csv body itself"),
});

/** `format` on a list query: json (default) or csv. */
export const ZListFormat = z
  .enum(["json", "csv"])
  .optional()
  .describe("csv: a text/csv export (or send Accept: text/csv)");

interface CsvContext {
  header(name: string): string | undefined;
  setHeader(name: string, value: string): void;
}

/** Whether the request asked for CSV: `format=csv`, or no `format` and an Accept naming text/csv. */
export function wantsCsv(format: "json" | "csv" | undefined, ctx: CsvContext): boolean {
  return format === "csv" || (format === undefined && acceptsCsv(ctx.header));
}

/** The CSV answer of one page: the paging headers set, the file named `<name>-<UTC stamp>.csv`. */
export function csvAnswer(
  ctx: CsvContext,
  now: Date,
  name: string,
  page: { next_cursor: string | null; total: number },
  csv: string,
) {
  if (page.next_cursor) ctx.setHeader("X-Next-Cursor", page.next_cursor);
  ctx.setHeader("X-Total-Count", String(page.total));
  const stamp = now
    .toISOString()
    .replace(/[^0-9]/g, "")
    .slice(0, 14);
  return { format: "csv" as const, filename: `${name}-${stamp}.csv`, csv };
}
