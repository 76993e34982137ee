/** The signed-in operator console around one page or control, for component tests (not a test file itself). */
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter } from "react-router";
import type { AdminClient, AdminMe } from "./api";
import { AdminContext } from "./context";

export const operator = {
  admin: { id: "adm_1", email: "op@example.com", role: "operator" },
  session_expires_at: "",
  can_act: true,
} as AdminMe;

/**
 * Renders `ui` in a router as the operator with `client` (only the procedures the test sets); a viewer when
 * `canAct` is false; `path` is the URL the page opens at (its query carries filters and sort).
 */
export function renderAdmin(ui: ReactNode, client: unknown, canAct = true, path = "/") {
  return render(
    <AdminContext.Provider value={{ client: client as AdminClient, me: operator, canAct }}>
      <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
    </AdminContext.Provider>,
  );
}

/** A promise the test settles itself, to look at the page while a call is still running. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
