/**
 * The URL state of the merchant's lists (decisions 0076, 0083): the shared date range (`range`, decision 0073),
 * the filters (`network`, `state`, `payer` unless the list names its own) and the sort (`sort`, decision 0072), all in
 * the URL so a filtered, sorted list can be bookmarked. `query` is what the API is asked: the range's first day
 * at 00:00 UTC up to the day after its last (the API's `to` is exclusive).
 */
import { useSearchParams } from "react-router";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { useDateRange } from "../../ui/DateRange";
import { pick } from "../../ui/Filters";

export const LIST_FILTERS = ["network", "state", "payer"] as const;
export type ListFilter = (typeof LIST_FILTERS)[number];

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` -> the next day's midnight as an ISO instant. */
export function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString();
}

export function useMerchantList(
  sortKeys: readonly string[],
  {
    filterNames = LIST_FILTERS,
    allowCustom = true,
  }: {
    /** The URL parameters that are this list's filters. */
    filterNames?: readonly string[];
    /** Whether the range may be a custom pair of days or only a preset (decision 0073). */
    allowCustom?: boolean;
  } = {},
) {
  const [params, setParams] = useSearchParams();
  const dates = useDateRange({ allowCustom });
  const filters: Partial<Record<string, string>> = pick(Object.fromEntries(params), filterNames);
  const { sort, toggle } = useSortParam(sortKeys);
  const query: Record<string, string> = {
    ...filters,
    from: new Date(`${dates.range.from}T00:00:00Z`).toISOString(),
    to: dayAfter(dates.range.to),
    ...(sort ? { sort: sortParam(sort) } : {}),
  };
  /** Applies the filter form's fields; the range and the sort stay. */
  function apply(values: Record<string, string>) {
    const next = new URLSearchParams(params);
    for (const name of filterNames) {
      if (values[name]) next.set(name, values[name]);
      else next.delete(name);
    }
    setParams(next);
  }
  return { dates, filters, sort, toggle, query, key: new URLSearchParams(query).toString(), apply };
}

export type MerchantListState = ReturnType<typeof useMerchantList>;
