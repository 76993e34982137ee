import { useEffect, useRef, useState } from "react";

/** How often a live page reads again while it is shown (decision 0073). */
export const LIVE_INTERVAL_MS = 15_000;

/**
 * Live updates for a page's read (decision 0073): `refresh` (useLoad's, no loading state) runs every
 * `intervalMs` while the tab is shown, not at all while it is hidden (`visibilitychange`), and once at once when
 * the tab is shown again. The API answers an unchanged read with 304 (ETag/If-None-Match, lib/conditionalFetch.ts),
 * so a poll that finds nothing new costs no body. Returns whether polling is paused (the tab hidden).
 */
const hidden = () => document.visibilityState === "hidden";

export function useLive(refresh: () => Promise<void>, intervalMs = LIVE_INTERVAL_MS): { paused: boolean } {
  const [paused, setPaused] = useState(hidden);
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(tick, intervalMs);
    };
    const tick = async () => {
      if (hidden() || running) return;
      running = true;
      try {
        await refreshRef.current();
      } finally {
        running = false;
      }
      if (!hidden()) schedule();
    };
    const onVisibility = () => {
      setPaused(hidden());
      clearTimeout(timer);
      if (!hidden()) void tick();
    };
    if (!hidden()) schedule();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [intervalMs]);
  return { paused };
}
