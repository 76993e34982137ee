/**
 * CSV the consoles save (decision 0072): RFC 4180 (CRLF lines; a cell with a comma, quote, CR or LF is quoted, its
 * quotes doubled) with the formula-injection defence the API's exports use: a cell a spreadsheet would read as a
 * formula (first character `=`, `+`, `-`, `@`, TAB or CR; OWASP "CSV Injection") is prefixed with `'`.
 */
export type CsvValue = string | number | bigint | boolean | null | undefined;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header line and one line per row, each ended by CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(",")}\r\n`).join("");
}

/**
 * Every row of the current filter, not just the page on screen: reads page after page through `load` until
 * there is no next cursor (at most `maxPages`, so a runaway list cannot hang the tab).
 */
export async function allPages<Row>(
  load: (page: { cursor?: string }) => Promise<{ rows: readonly Row[]; next: string | null | undefined }>,
  maxPages = 200,
): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await load(cursor ? { cursor } : {});
    rows.push(...result.rows);
    if (!result.next) return rows;
    cursor = result.next;
  }
  throw new Error(`The export stopped after ${maxPages} pages: narrow the filters and export again.`);
}

/** Saves `text` as a file through a temporary link (the browser's download). */
export function saveFile(text: string | readonly string[], filename: string, type = "text/csv"): void {
  const url = URL.createObjectURL(new Blob(typeof text === "string" ? [text] : [...text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}
