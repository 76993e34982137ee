import { useCallback, useEffect, useRef, useState } from "react";

/**
 * One read's state. A reload keeps what is already known: the previous data (pages keep showing it) and the
 * previous failure (the merchant pages keep the problem on screen while "Try again" runs).
 */
export type Load<T> =
  | { status: "loading"; data?: T; error?: unknown }
  | { status: "error"; error: unknown; data?: undefined }
  | { status: "ready"; data: T; error?: undefined };

/**
 * Runs `load` on mount and whenever `key` changes, and on `reload()`. The newest call wins: a slow older answer
 * never overwrites a newer one, nor lands after the component is gone. `reload()` settles when its read has.
 */
export function useLoad<T>(
  load: () => Promise<T>,
  key: unknown = undefined,
): Load<T> & { reload: () => Promise<void> } {
  const [state, setState] = useState<Load<T>>({ status: "loading" });
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
      if (mine === seq.current) setState({ status: "ready", data });
    } catch (error) {
      if (mine === seq.current) setState({ status: "error", error });
    }
  }, []);
  useEffect(() => {
    void key; // the trigger: a new key is a new read
    void reload();
    return () => {
      seq.current++;
    };
  }, [reload, key]);
  return { ...state, reload };
}
