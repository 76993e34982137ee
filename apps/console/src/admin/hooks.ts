import { useCallback, useEffect, useRef, useState } from "react";

export type Load<T> =
  | { status: "loading"; data?: T }
  | { status: "error"; error: unknown; data?: T }
  | { status: "ready"; data: T };

/** Runs `load` when `key` changes; the newest call wins (a slow older answer never overwrites a newer one). */
export function useLoad<T>(load: () => Promise<T>, key: string): Load<T> & { reload: () => void } {
  const [state, setState] = useState<Load<T>>({ status: "loading" });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` and `tick` are the triggers by design.
  useEffect(() => {
    let live = true;
    setState((previous) => ({
      status: "loading",
      ...(previous.data !== undefined ? { data: previous.data } : {}),
    }));
    loadRef.current().then(
      (data) => live && setState({ status: "ready", data }),
      (error: unknown) => live && setState({ status: "error", error }),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/**
 * Cursor pagination: a stack of cursors, so Previous returns to the page seen before. Filters reset it.
 */
export function useCursor(filtersKey: string) {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  const [seenKey, setSeenKey] = useState(filtersKey);
  if (seenKey !== filtersKey) {
    setSeenKey(filtersKey);
    setStack([undefined]);
  }
  const cursor = stack[stack.length - 1];
  return {
    cursor,
    page: stack.length,
    next: (nextCursor: string) => setStack((s) => [...s, nextCursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
  };
}
