import { fireEvent, screen, waitFor } from "@testing-library/react";
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
  vi.restoreAllMocks();
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

const row = (id: number) => ({
  id: String(id),
  seen_at: `2026-01-01T00:00:0${id}.000Z`,
  network: "amoy",
  chain_id: 80002,
  state: "final",
  total_amount: "1000000000000000000",
  treasury_amount: "10000000000000000",
  asset: "POL",
  merchant_id: "mrch_abc",
  payer: `0x${"8b".repeat(20)}`,
  quote_id: null,
  bridge_order_id: null,
  receipt: null,
  tx_hash: `0x${String(id).repeat(64)}`,
  explorer_url: "https://amoy.polygonscan.com",
  block_number: String(100 + id),
  scheme: "splitter",
  channel_id: null,
});

describe("TransactionsListPage schemes (decision 0093)", () => {
  it("labels splitter payments and x402 session claims by scheme", async () => {
    const claim = {
      ...row(2),
      scheme: "batch-settlement",
      channel_id: `0x${"c4".repeat(32)}`,
      treasury_amount: "0",
    };
    const query = vi.fn().mockResolvedValue({ transactions: [row(1), claim], next_cursor: null, total: 2 });
    vi.stubGlobal("fetch", vi.fn().mockResolvedValue(Response.json({ chains: [] })));
    renderAdmin(<TransactionsListPage />, { adminRead: { transactions: { query } } }, true, "/");
    await screen.findByTestId("list-count");
    expect(screen.getByRole("columnheader", { name: /Scheme/ })).toBeTruthy();
    expect(screen.getByTestId("settlement-scheme-1").textContent).toBe("Splitter");
    expect(screen.getByTestId("settlement-scheme-2").textContent).toBe("Session (batch)");
  });
});

describe("TransactionsListPage sort, total and export", () => {
  it("sends the URL's sort, marks its column, shows the exact total and re-sorts on a header click", async () => {
    const query = vi
      .fn()
      .mockResolvedValue({ transactions: [row(1), row(2)], next_cursor: "n", total: 1234 });
    vi.stubGlobal("fetch", vi.fn().mockResolvedValue(Response.json({ chains: [] })));
    renderAdmin(
      <TransactionsListPage />,
      { adminRead: { transactions: { query } } },
      true,
      "/?sort=seen_at&state=final",
    );
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–2 of 1,234");
    expect(query).toHaveBeenLastCalledWith({ state: "final", sort: "seen_at", limit: 50 });
    const seen = screen.getByRole("columnheader", { name: /Seen/ });
    expect(seen.getAttribute("aria-sort")).toBe("ascending");
    fireEvent.click(screen.getByTestId("sort-seen_at"));
    await waitFor(() =>
      expect(query).toHaveBeenLastCalledWith({ state: "final", sort: "-seen_at", limit: 50 }),
    );
    expect(screen.getByRole("columnheader", { name: /Seen/ }).getAttribute("aria-sort")).toBe("descending");
    fireEvent.click(screen.getByTestId("sort-id"));
    await waitFor(() => expect(query).toHaveBeenLastCalledWith({ state: "final", sort: "-id", limit: 50 }));
  });

  it("exports every page of the filter in the chosen order into one CSV (one header)", async () => {
    const query = vi.fn().mockResolvedValue({ transactions: [row(1)], next_cursor: null, total: 1 });
    const pages = Array.from({ length: 25 }, (_, index) => index);
    const fetchMock = vi.fn(async (url: string) => {
      if (url.includes("payment-capabilities")) return Response.json({ chains: [] });
      const params = new URL(url, "http://console.test").searchParams;
      const index = Number(params.get("cursor") ?? "0");
      const next = index + 1 < pages.length ? { "x-next-cursor": String(index + 1) } : undefined;
      return new Response(`settlement_id,seen_at\r\n${index},x\r\n`, { headers: { ...next } });
    });
    vi.stubGlobal("fetch", fetchMock);
    let saved: Blob | undefined;
    vi.spyOn(URL, "createObjectURL").mockImplementation((blob) => {
      saved = blob as Blob;
      return "blob:x";
    });
    vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(this.download);
    });
    renderAdmin(
      <TransactionsListPage />,
      { adminRead: { transactions: { query } } },
      true,
      "/?sort=-seen_at",
    );
    fireEvent.click(await screen.findByTestId("tx-export"));
    await waitFor(() => expect(saved).toBeDefined());
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(saved as Blob);
    });
    expect(downloads).toEqual(["tollgate-transactions.csv"]);
    expect(text.split("\r\n").filter((line) => line.startsWith("settlement_id"))).toHaveLength(1);
    expect(text).toContain("\r\n24,x\r\n");
    const exportCalls = fetchMock.mock.calls.map(([url]) => url).filter((url) => url.includes("/admin/api"));
    expect(exportCalls).toHaveLength(25);
    expect(
      exportCalls.every((url) => new URL(url, "http://console.test").searchParams.get("sort") === "-seen_at"),
    ).toBe(true);
  });
});
