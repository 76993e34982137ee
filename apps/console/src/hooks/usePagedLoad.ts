import { useCursor } from "./useCursor";
import { useLoad } from "./useLoad";

/**
 * A cursor-paged read: `load` gets the page's cursor (none on page 1). A new `filtersKey` starts again at
 * page 1; the list reloads on every page move and filter change.
 */
export function usePagedLoad<T>(filtersKey: string, load: (page: { cursor?: string }) => Promise<T>) {
  const cursor = useCursor(filtersKey);
  const list = useLoad(
    () => load(cursor.cursor ? { cursor: cursor.cursor } : {}),
    `${filtersKey}:${cursor.cursor ?? ""}`,
  );
  return { cursor, list };
}
