import { fireEvent, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderAdmin } from "../test-admin";
import { TransactionsListPage } from "./Transactions";

const client = {
  adminRead: { transactions: { query: vi.fn().mockResolvedValue({ transactions: [], next_cursor: null }) } },
};

function renderPage() {
  renderAdmin(<TransactionsListPage />, client);
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("TransactionsListPage CSV export", () => {
  it("a failure that is not JSON (a proxy's page) shows its HTTP status, not a parse error", async () => {
    const page = new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" });
    vi.stubGlobal("fetch", vi.fn().mockResolvedValue(page));
    renderPage();
    fireEvent.click(screen.getByTestId("tx-export"));
    const problem = await screen.findByTestId("export-problem");
    expect(problem.textContent).toContain("HTTP 502 Bad Gateway");
    expect(problem.textContent).not.toContain("JSON");
  });

  it("a problem the API sent is shown as before", async () => {
    const body = {
      type: "/docs/errors#admin_auth_required",
      title: "Sign-in required",
      status: 401,
      detail: "the operator session ended",
      code: "admin_auth_required",
    };
    vi.stubGlobal("fetch", vi.fn().mockResolvedValue(Response.json(body, { status: 401 })));
    renderPage();
    fireEvent.click(screen.getByTestId("tx-export"));
    expect((await screen.findByTestId("export-problem")).textContent).toContain(
      "Sign-in required: the operator session ended",
    );
  });
});
