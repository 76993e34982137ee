import { useEffect, useState } from "react";
import { useLive } from "../hooks/useLive";
import type { LoadHandle } from "../hooks/useLoad";

/** "Updated 12 s ago" from a time in ms; minutes past a minute, hours past an hour. */
export function agoText(updatedAt: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - updatedAt) / 1000));
  if (seconds < 60) return `Updated ${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `Updated ${minutes} min ago`;
  return `Updated ${Math.floor(minutes / 60)} h ago`;
}

/**
 * Keeps `load` live (hooks/useLive.ts, decision 0073) and says how fresh it is. Not a live region: a line that
 * changes every second would be read out every second; the figures themselves are what people look at.
 */
export function LiveStatus({
  load,
  intervalMs,
  hidden = false,
}: {
  load: LoadHandle<unknown>;
  intervalMs?: number;
  /** Polls without a line of its own: a second read of a page whose first read already says how fresh it is. */
  hidden?: boolean;
}) {
  const { paused } = useLive(load.refresh, intervalMs);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (paused || hidden) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [paused, hidden]);
  if (hidden || load.updatedAt === undefined) return null;
  return (
    <p className="live-status muted" data-testid="live-status">
      {agoText(load.updatedAt, Math.max(now, load.updatedAt))}
      {paused ? " · paused while this tab is hidden" : ""}
      {load.refreshError !== undefined ? " · the last update failed, trying again" : ""}
    </p>
  );
}
