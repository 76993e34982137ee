/**
 * The operator lists of decision 0077 (agents, audit, failed payments, webhook endpoints, accounts): a header click
 * puts the sort in the URL and the query, the Pager shows the exact total, and Export saves every page of the
 * filter and sort as one CSV with one header (the API's CSV, or the browser's for accounts).
 */
import { fireEvent, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderAdmin } from "../test-admin";
import { AccountsPage } from "./Accounts";
import { AgentsPage } from "./Agents";
import { AuditPage } from "./Audit";
import { FailedPage } from "./Failed";
import { WebhooksPage } from "./Webhooks";

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** Captures the saved file: its name and its text. */
function captureDownload() {
  const saved: { blob?: Blob; name?: string } = {};
  vi.spyOn(URL, "createObjectURL").mockImplementation((blob) => {
    saved.blob = blob as Blob;
    return "blob:x";
  });
  vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    saved.name = this.download;
  });
  return async () => {
    await waitFor(() => expect(saved.blob).toBeDefined());
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(saved.blob as Blob);
    });
    return { name: saved.name, text };
  };
}

/** A server CSV of two pages (the second through X-Next-Cursor); returns the export's fetch mock. */
function serverCsv(header: string) {
  const fetchMock = vi.fn(async (url: string) => {
    const cursor = new URL(url, "http://console.test").searchParams.get("cursor");
    return new Response(`${header}\r\n${cursor ?? "first"},x\r\n`, {
      headers: cursor ? {} : { "x-next-cursor": "page2" },
    });
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

async function exportsEveryPage(options: {
  page: ReactNode;
  client: unknown;
  path: string;
  button: string;
  api: string;
  file: string;
  sort: string;
}) {
  const fetchMock = serverCsv("h1,h2");
  const file = captureDownload();
  renderAdmin(options.page, options.client, true, options.path);
  fireEvent.click(await screen.findByTestId(options.button));
  const { name, text } = await file();
  expect(name).toBe(options.file);
  expect(text).toBe("h1,h2\r\nfirst,x\r\npage2,x\r\n");
  const urls = fetchMock.mock.calls.map(([url]) => new URL(url, "http://console.test"));
  expect(urls.map((url) => url.pathname)).toEqual([options.api, options.api]);
  expect(urls.map((url) => [url.searchParams.get("format"), url.searchParams.get("sort")])).toEqual([
    ["csv", options.sort],
    ["csv", options.sort],
  ]);
}

const agent = (n: number) => ({
  address: `0x${String(n).repeat(40)}`,
  family: "evm",
  settlements: n,
  merchants_paid: 1,
  first_seen: null,
  last_seen: null,
});

describe("AgentsPage", () => {
  it("sorts by address from the header (aria-sort), shows the total and exports the API's CSV", async () => {
    const query = vi.fn().mockResolvedValue({ agents: [agent(1), agent(2)], next_cursor: "c", total: 1234 });
    renderAdmin(<AgentsPage />, { adminRead: { agents: { query } } });
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–2 of 1,234");
    expect(query).toHaveBeenLastCalledWith({ limit: 25 });
    expect(screen.getByRole("columnheader", { name: /Address/ }).getAttribute("aria-sort")).toBe("none");
    fireEvent.click(screen.getByTestId("sort-address"));
    await waitFor(() => expect(query).toHaveBeenLastCalledWith({ sort: "address", limit: 25 }));
    fireEvent.click(screen.getByTestId("sort-address"));
    await waitFor(() => expect(query).toHaveBeenLastCalledWith({ sort: "-address", limit: 25 }));
    expect(screen.getByRole("columnheader", { name: /Address/ }).getAttribute("aria-sort")).toBe(
      "descending",
    );
  });

  it("Export reads every page of the URL's sort into one file", async () => {
    const query = vi.fn().mockResolvedValue({ agents: [], next_cursor: null, total: 0 });
    await exportsEveryPage({
      page: <AgentsPage />,
      client: { adminRead: { agents: { query } } },
      path: "/?sort=-address",
      button: "agents-export",
      api: "/admin/api/agents",
      file: "tollgate-agents.csv",
      sort: "-address",
    });
  });
});

const event = (seq: number) => ({
  seq: String(seq),
  id: `aud_${seq}`,
  at: "2026-06-01T00:00:00.000Z",
  actor: { type: "admin", id: "adm_1" },
  action: "admin.login",
  target: null,
  ip: null,
  request_id: null,
  before: null,
  after: null,
  details: null,
  hash: "ab",
});

describe("AuditPage", () => {
  it("sorts by seq or at from the headers, keeps verify=1, and exports with the sort", async () => {
    const query = vi.fn().mockResolvedValue({ events: [event(2), event(1)], next_cursor: null, total: 2 });
    renderAdmin(<AuditPage />, { adminRead: { audit: { query } } });
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–2 of 2");
    fireEvent.click(screen.getByTestId("sort-at"));
    await waitFor(() => expect(query).toHaveBeenLastCalledWith({ sort: "-at", verify: "1", limit: 50 }));
    fireEvent.click(screen.getByTestId("sort-seq"));
    await waitFor(() => expect(query).toHaveBeenLastCalledWith({ sort: "-seq", verify: "1", limit: 50 }));
    expect(screen.getByRole("columnheader", { name: /Seq/ }).getAttribute("aria-sort")).toBe("descending");
    expect(screen.getByRole("columnheader", { name: /At/ }).getAttribute("aria-sort")).toBe("none");
  });

  it("Export reads every page of the sort into one file", async () => {
    const query = vi.fn().mockResolvedValue({ events: [], next_cursor: null, total: 0 });
    await exportsEveryPage({
      page: <AuditPage />,
      client: { adminRead: { audit: { query } } },
      path: "/?sort=at",
      button: "audit-export",
      api: "/admin/api/audit",
      file: "tollgate-audit.csv",
      sort: "at",
    });
  });
});

const failed = {
  id: "fail_7",
  kind: "unmatched_payment",
  reason: "unknown_quote",
  status: "open",
  network: "amoy",
  chain_id: 80002,
  tx_hash: `0x${"7".repeat(64)}`,
  explorer_url: null,
  log_index: 0,
  payer: `0x${"1".repeat(40)}`,
  merchant_id: null,
  merchant_address: `0x${"2".repeat(40)}`,
  token: `0x${"0".repeat(40)}`,
  asset: "POL",
  total_amount: "1",
  merchant_amount: "1",
  treasury_amount: "0",
  ip_creator_amount: "0",
  order_id: "qt_x",
  quote_id: null,
  quote_expires_at: null,
  receipt_id: null,
  settlement_state: "confirmed",
  seen_at: "2026-01-01T00:00:00.000Z",
  bridge: null,
  resolution: null,
};

describe("FailedPage", () => {
  it("sorts by seen_at from the header with the status filter", async () => {
    const query = vi
      .fn()
      .mockResolvedValue({ failed: [failed], next_cursor: null, total: 1, dead_letter_webhooks: 0 });
    renderAdmin(<FailedPage />, { dashboard: { failed: { query } } });
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–1 of 1");
    fireEvent.click(screen.getByTestId("sort-seen_at"));
    await waitFor(() =>
      expect(query).toHaveBeenLastCalledWith({ status: "open", sort: "-seen_at", limit: 50 }),
    );
    fireEvent.click(screen.getByTestId("sort-seen_at"));
    await waitFor(() =>
      expect(query).toHaveBeenLastCalledWith({ status: "open", sort: "seen_at", limit: 50 }),
    );
  });

  it("Export reads every page into one file", async () => {
    const query = vi
      .fn()
      .mockResolvedValue({ failed: [], next_cursor: null, total: 0, dead_letter_webhooks: 0 });
    await exportsEveryPage({
      page: <FailedPage />,
      client: { dashboard: { failed: { query } } },
      path: "/?sort=seen_at",
      button: "failed-export",
      api: "/api/dashboard/failed",
      file: "tollgate-failed-payments.csv",
      sort: "seen_at",
    });
  });
});

const health = (endpoints: unknown[]) => ({
  totals: { delivered: 0, pending: 0, failed: 0, dead: 0, success_rate: null },
  dead_letters: [],
  endpoints,
  next_cursor: null,
  total: endpoints.length,
  series: { from: "2026-11-22", to: "2026-11-23", bucket: "hour", points: [] },
});
const endpoint = (n: number) => ({
  merchant_id: `mrch_Endpoint${n}`,
  status: "active",
  disabled_reason: null,
  created_at: "2026-01-01T00:00:00.000Z",
  secret_rotated_at: "2026-01-01T00:00:00.000Z",
  deliveries: { delivered: 0, pending: 0, failed: 0, dead: 0 },
  success_rate: null,
});

describe("WebhooksPage endpoints", () => {
  it("sorts by merchant or creation from the headers and shows the total", async () => {
    const query = vi.fn().mockResolvedValue(health([endpoint(1), endpoint(2)]));
    renderAdmin(<WebhooksPage />, { dashboard: { webhooks: { query } } });
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–2 of 2");
    fireEvent.click(screen.getByTestId("sort-created_at"));
    await waitFor(() =>
      expect(query).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "created_at", limit: 50 })),
    );
    fireEvent.click(screen.getByTestId("sort-merchant_id"));
    await waitFor(() =>
      expect(query).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "merchant_id", limit: 50 })),
    );
  });

  it("Export reads every page of endpoints into one file", async () => {
    const query = vi.fn().mockResolvedValue(health([]));
    await exportsEveryPage({
      page: <WebhooksPage />,
      client: { dashboard: { webhooks: { query } } },
      path: "/?sort=-created_at",
      button: "webhooks-export",
      api: "/api/dashboard/webhooks",
      file: "tollgate-webhook-endpoints.csv",
      sort: "-created_at",
    });
  });
});

const account = (n: number) => ({
  id: `adm_${n}`,
  kind: "admin",
  email: n === 2 ? "=cmd@example.com" : `op${n}@example.com`,
  role: "viewer",
  created_at: `2026-01-0${n}T00:00:00.000Z`,
  last_login_at: null,
  disabled: false,
});

describe("AccountsPage", () => {
  it("sorts by creation from the header, shows the total, and exports every page formula-safe", async () => {
    const query = vi.fn(async ({ cursor, limit }: { cursor?: string; limit: number }) =>
      limit === 100 && cursor === undefined
        ? { users: [account(1), account(2)], next_cursor: "p2", total: 3 }
        : {
            users: limit === 100 ? [account(3)] : [account(1), account(2), account(3)],
            next_cursor: null,
            total: 3,
          },
    );
    const file = captureDownload();
    renderAdmin(<AccountsPage />, { adminRead: { users: { query } } });
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–3 of 3");
    fireEvent.click(screen.getByTestId("sort-created_at"));
    await waitFor(() =>
      expect(query).toHaveBeenLastCalledWith({ kind: "admin", sort: "created_at", limit: 50 }),
    );
    fireEvent.click(screen.getByTestId("sort-created_at"));
    await waitFor(() =>
      expect(query).toHaveBeenLastCalledWith({ kind: "admin", sort: "-created_at", limit: 50 }),
    );
    fireEvent.click(screen.getByTestId("accounts-export"));
    const { name, text } = await file();
    expect(name).toBe("tollgate-operators.csv");
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines[0]).toBe("id,kind,email,role,wallets,created_at,last_login_at,disabled");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain(",'=cmd@example.com,");
    expect(query).toHaveBeenCalledWith({ kind: "admin", sort: "-created_at", cursor: "p2", limit: 100 });
  });
});
