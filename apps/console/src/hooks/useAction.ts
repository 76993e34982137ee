import { useCallback, useState } from "react";
import { type FormProblem, toFormProblem } from "../lib/errors";

/**
 * A button's or form's call to the API: `busy` while it runs, the failure as a problem to show, and a notice
 * when it says what it did (the string it resolves to). A new run clears the last problem, and the last notice
 * too unless `keepNotice` (lists whose notice stays until the next success replaces it).
 */
export function useAction({ keepNotice = false }: { keepNotice?: boolean } = {}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<FormProblem>();
  const [notice, setNotice] = useState<string>();
  const run = useCallback(
    async (what: () => Promise<unknown>): Promise<boolean> => {
      setBusy(true);
      setProblem(undefined);
      if (!keepNotice) setNotice(undefined);
      try {
        const message = await what();
        if (typeof message === "string" && message) setNotice(message);
        return true;
      } catch (error) {
        setProblem(toFormProblem(error));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [keepNotice],
  );
  return { busy, problem, notice, run, setProblem, setNotice };
}
