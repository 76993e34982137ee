import { useCallback, useEffect, useRef, useState } from "react";

/**
 * One read's state. A reload keeps what is already known: the previous data (pages keep showing it) and the
 * previous failure (the merchant pages keep the problem on screen while "Try again" runs).
 */
export type Load<T> =
  | { status: "loading"; data?: T; error?: unknown }
  | { status: "error"; error: unknown; data?: undefined }
  | { status: "ready"; data: T; error?: undefined };

/** What a page gets: the read's state, `reload()`, and for live pages `refresh()` and when data last arrived. */
export type LoadHandle<T> = Load<T> & {
  reload: () => Promise<void>;
  /**
   * Reads again without a loading state (live updates, decision 0073): the data on screen stays until the new
   * answer is in, an answer equal to it keeps the same object (charts do not redraw), and a failure keeps the
   * data and is reported in `refreshError`; with nothing on screen yet it is a failure like any other.
   */
  refresh: () => Promise<void>;
  /** `Date.now()` when the data on screen was last read (unchanged answers count). */
  updatedAt?: number;
  refreshError?: unknown;
};

/**
 * Runs `load` on mount and whenever `key` changes, and on `reload()`. The newest call wins: a slow older answer
 * never overwrites a newer one, nor lands after the component is gone. `reload()` settles when its read has.
 */
export function useLoad<T>(load: () => Promise<T>, key: unknown = undefined): LoadHandle<T> {
  const [state, setState] = useState<Load<T>>({ status: "loading" });
  const [fresh, setFresh] = useState<{ updatedAt?: number; refreshError?: unknown }>({});
  const seq = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setState((previous) => ({
      status: "loading",
      ...(previous.data !== undefined ? { data: previous.data } : {}),
      ...(previous.error !== undefined ? { error: previous.error } : {}),
    }));
    try {
      const data = await loadRef.current();
      if (mine !== seq.current) return;
      setState({ status: "ready", data });
      setFresh({ updatedAt: Date.now() });
    } catch (error) {
      if (mine === seq.current) setState({ status: "error", error });
    }
  }, []);
  const refresh = useCallback(async () => {
    const mine = ++seq.current;
    try {
      const data = await loadRef.current();
      if (mine !== seq.current) return;
      setState((previous) =>
        previous.status === "ready" && sameJson(previous.data, data) ? previous : { status: "ready", data },
      );
      setFresh({ updatedAt: Date.now() });
    } catch (error) {
      if (mine !== seq.current) return;
      setState((previous) => (previous.data !== undefined ? previous : { status: "error", error }));
      setFresh((previous) => ({ ...previous, refreshError: error }));
    }
  }, []);
  useEffect(() => {
    void key; // the trigger: a new key is a new read
    void reload();
    return () => {
      seq.current++;
    };
  }, [reload, key]);
  return { ...state, ...fresh, reload, refresh };
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
