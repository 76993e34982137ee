import { useSearchParams } from "react-router";

/** A list's order: a column key and its direction (the API's `?sort=key` / `?sort=-key`). */
export interface SortState {
  key: string;
  direction: "asc" | "desc";
}

/** `key` or `-key` read back; anything outside `keys` is no sort (the list's default order). */
export function parseSort(value: string | null, keys: readonly string[]): SortState | undefined {
  if (!value) return undefined;
  const direction = value.startsWith("-") ? "desc" : "asc";
  const key = direction === "desc" ? value.slice(1) : value;
  return keys.includes(key) ? { key, direction } : undefined;
}

export const sortParam = (sort: SortState) => (sort.direction === "desc" ? `-${sort.key}` : sort.key);

/**
 * The sort kept in the URL's `sort` parameter (decision 0072), so a sorted list can be bookmarked and shared.
 * Clicking the sorted column flips its direction; another column starts with `firstDirection`.
 */
export function useSortParam(keys: readonly string[], firstDirection: "asc" | "desc" = "desc") {
  const [params, setParams] = useSearchParams();
  const sort = parseSort(params.get("sort"), keys);
  function toggle(key: string) {
    const direction =
      sort?.key === key ? (sort.direction === "asc" ? "desc" : "asc") : (firstDirection as "asc" | "desc");
    const next = new URLSearchParams(params);
    next.set("sort", sortParam({ key, direction }));
    setParams(next);
  }
  return { sort, toggle };
}
