import { saveFile } from "../../lib/csv";
import type { CsvList, MerchantApi } from "../../lib/trpc";

/** 1000-row CSV pages: 200 pages is 200 000 rows, beyond which the merchant narrows the filters (decision 0072). */
export const MAX_EXPORT_PAGES = 200;

/**
 * Every row of the list's filter and sort as one CSV file with one header, read page after page through the
 * API's `X-Next-Cursor`; past MAX_EXPORT_PAGES it fails rather than save a silently cut file.
 */
export async function exportListCsv(
  api: Pick<MerchantApi, "csvPage">,
  list: CsvList,
  merchantId: string,
  query: Record<string, string>,
): Promise<void> {
  const parts: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    if (page === MAX_EXPORT_PAGES) {
      throw new Error(`More than ${MAX_EXPORT_PAGES * 1000} rows: narrow the filters and export again.`);
    }
    const answer = await api.csvPage(list, merchantId, { ...query, ...(cursor ? { cursor } : {}) });
    parts.push(page === 0 ? answer.text : answer.text.slice(answer.text.indexOf("\n") + 1));
    cursor = answer.next;
    if (!cursor) break;
  }
  saveFile(parts, `tollgate-${list.replace("/", "-")}.csv`);
}
