/**
 * The URL state of the merchant's receipts and settlements lists (decision 0076): the shared date range
 * (`range`, decision 0073), the filters (`network`, `state`, `payer`) and the sort (`sort`, decision 0072), all in
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

export function useMerchantList(sortKeys: readonly string[]) {
  const [params, setParams] = useSearchParams();
  const dates = useDateRange();
  const filters = pick(Object.fromEntries(params), LIST_FILTERS);
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
    for (const name of LIST_FILTERS) {
      if (values[name]) next.set(name, values[name]);
      else next.delete(name);
    }
    setParams(next);
  }
  return { dates, filters, sort, toggle, query, key: new URLSearchParams(query).toString(), apply };
}

export type MerchantListState = ReturnType<typeof useMerchantList>;
