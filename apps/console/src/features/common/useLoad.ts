import { useCallback, useEffect, useRef, useState } from "react";
import { type FormProblem, toFormProblem } from "../../lib/errors";

/** Loading / loaded / failed state of one read, with a reload; the latest call wins. */
/** `key`: a change reloads (e.g. the dashboard window). */
export function useLoad<T>(load: () => Promise<T>, key: unknown = undefined) {
  const [state, setState] = useState<
    { kind: "loading" } | { kind: "loaded"; data: T } | { kind: "failed"; problem: FormProblem }
  >({ kind: "loading" });
  const seq = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    try {
      const data = await loadRef.current();
      if (mine === seq.current) setState({ kind: "loaded", data });
    } catch (error) {
      if (mine === seq.current) setState({ kind: "failed", problem: toFormProblem(error) });
    }
  }, []);
  useEffect(() => {
    void key;
    void reload();
  }, [reload, key]);
  return { state, reload };
}
