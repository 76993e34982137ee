import { useEffect } from "react";

/**
 * Names the browser tab after the page: "Transactions · Tollgate operator" (decision 0072), so a tab strip and
 * the history tell pages apart. The previous title comes back when the page goes away.
 */
export function usePageTitle(page: string | undefined, area: "operator" | "merchant"): void {
  useEffect(() => {
    const before = document.title;
    document.title = page ? `${page} · Tollgate ${area}` : `Tollgate ${area}`;
    return () => {
      document.title = before;
    };
  }, [page, area]);
}
