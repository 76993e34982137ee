/**
 * Server CSV exports (decisions 0072, 0077): reads a list's `?format=csv` page after page through `X-Next-Cursor`
 * with the list's filters and sort, and saves one file with one header. Beyond `maxPages` pages of 1000 rows it
 * fails rather than save a silently cut file.
 */
import { saveFile } from "../lib/csv";

/** 1000-row CSV pages: 200 pages is 200 000 rows, beyond which an operator narrows the filters. */
export const MAX_EXPORT_PAGES = 200;

/** A JSON page of a list that can also answer CSV: a CSV answer to a JSON request is a bug, not a page. */
export function jsonPage<Answer extends object>(page: Answer): Exclude<Answer, { format: "csv" }> {
  if ("format" in page && page.format === "csv") throw new Error("the API answered CSV to a JSON request");
  return page as Exclude<Answer, { format: "csv" }>;
}

export async function downloadServerCsv(
  path: string,
  filters: Record<string, string>,
  filename: string,
  maxPages = MAX_EXPORT_PAGES,
): Promise<void> {
  const parts: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    if (page === maxPages) {
      throw new Error(`More than ${maxPages * 1000} rows: narrow the filters and export again.`);
    }
    const query: URLSearchParams = new URLSearchParams({
      ...filters,
      format: "csv",
      ...(cursor ? { cursor } : {}),
    });
    const response: Response = await fetch(`${path}?${query}`, { credentials: "same-origin" });
    if (!response.ok) throw await exportFailure(response);
    const text = await response.text();
    parts.push(page === 0 ? text : text.slice(text.indexOf("\n") + 1));
    cursor = response.headers.get("x-next-cursor");
    if (!cursor) break;
  }
  saveFile(parts, filename);
}

/** A failed page's problem when the API sent one; else (a proxy's HTML page, say) its HTTP status. */
async function exportFailure(response: Response): Promise<unknown> {
  const body = await response.text();
  try {
    return JSON.parse(body);
  } catch {
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    return new Error(`The export failed: HTTP ${status}.`);
  }
}

/** The Export CSV button every list shows beside its filters. */
export function exportLabel(busy: boolean): string {
  return busy ? "Exporting…" : "Export CSV";
}
