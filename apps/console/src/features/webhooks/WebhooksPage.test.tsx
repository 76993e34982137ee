import { fireEvent, render as renderDom, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MerchantApi } from "../../lib/trpc";
import { fakeApi, profile } from "../../test-fakes";
import { forgetCarriedRange } from "../../ui/DateRange";
import { WebhooksPage } from "./WebhooksPage";

/** The URL's query, shown so a test can read what the page put there. */
function Search() {
  return <output data-testid="search">{useLocation().search}</output>;
}

/** The page reads its date range, filters and sort from the URL (decisions 0073, 0083). */
const render = (ui: ReactNode, path = "/webhooks") =>
  renderDom(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route
          path="*"
          element={
            <>
              {ui}
              <Search />
            </>
          }
        />
      </Routes>
    </MemoryRouter>,
  );

/** A saved file's text (jsdom's Blob has no text()). */
function blobText(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(blob);
  });
}

beforeEach(() => forgetCarriedRange());
afterEach(() => vi.restoreAllMocks());

const point = (
  at: string,
  counts: Partial<Record<"delivered" | "failed" | "dead" | "pending", number>> = {},
) => {
  const full = { delivered: 0, failed: 0, dead: 0, pending: 0, ...counts };
  const settled = full.delivered + full.dead;
  return { at, ...full, success_rate: settled === 0 ? null : full.delivered / settled };
};
const emptySeries = {
  from: "2026-01-01",
  to: "2026-01-02",
  bucket: "hour" as const,
  points: [point("2026-01-01T00:00:00Z")],
};

const delivery = {
  event_id: "evt_1111111111111111",
  type: "test.ping",
  status: "delivered" as const,
  attempts: 1,
  last_status: 204,
  last_error: null,
  last_attempt_at: "2026-01-01T00:00:01.000Z",
  delivered_at: "2026-01-01T00:00:01.000Z",
  next_attempt_at: null,
  created_at: "2026-01-01T00:00:00.000Z",
};

/** One page of the deliveries read (decision 0083). */
const answer = (over: Record<string, unknown> = {}) => ({
  merchant_id: profile().merchant_id,
  endpoint: null,
  deliveries: [],
  next_cursor: null,
  total: 0,
  series: emptySeries,
  ...over,
});

describe("WebhooksPage", () => {
  it("loading, then the empty state; creating a secret shows it once and reloads", async () => {
    const merchant = profile({ webhook_url: "https://hooks.example.com/t" });
    const api = fakeApi({
      webhookDeliveries: vi
        .fn()
        .mockResolvedValueOnce({
          merchant_id: merchant.merchant_id,
          endpoint: null,
          deliveries: [],
          next_cursor: null,
          total: 0,
          series: emptySeries,
        })
        .mockResolvedValue({
          merchant_id: merchant.merchant_id,
          endpoint: { status: "active", disabled_reason: null, rotated_at: "x" },
          deliveries: [delivery],
          next_cursor: null,
          total: 1,
          series: emptySeries,
        }),
      webhookSecret: vi.fn().mockResolvedValue({
        merchant_id: merchant.merchant_id,
        secret: "whsec_abc",
        rotated: false,
        previous_valid_until: null,
      }),
    });
    render(<WebhooksPage api={api} merchant={merchant} onSaved={vi.fn()} />);
    expect(screen.getByTestId("deliveries-loading")).toBeTruthy();
    expect(await screen.findByTestId("deliveries-empty")).toBeTruthy();
    expect(screen.getByTestId("webhook-secret-rotate").textContent).toBe("Create secret");
    fireEvent.click(screen.getByTestId("webhook-secret-rotate"));
    expect(((await screen.findByTestId("webhook-secret-value")) as HTMLInputElement).value).toBe("whsec_abc");
    expect((await screen.findByTestId(`delivery-status-${delivery.event_id}`)).textContent).toBe("delivered");
    expect(screen.getByTestId("webhook-secret-rotate").textContent).toBe("Rotate secret");
    expect(window.localStorage.length).toBe(0);
  });

  it("a failed load shows the problem and a retry", async () => {
    const api = fakeApi({ webhookDeliveries: vi.fn().mockRejectedValue(new TypeError("offline")) });
    render(<WebhooksPage api={api} merchant={profile()} onSaved={vi.fn()} />);
    expect((await screen.findByTestId("deliveries-problem")).textContent).toContain("Could not reach");
    expect(screen.getAllByRole("button", { name: "Try again" }).length).toBeGreaterThan(0);
  });

  it("asks for the URL's filters and sort; shows the rows, '1–2 of N' and copy buttons", async () => {
    const second = {
      ...delivery,
      event_id: "evt_2222222222222222",
      status: "dead" as const,
      last_status: 500,
    };
    const read = vi
      .fn<MerchantApi["webhookDeliveries"]>()
      .mockResolvedValue(answer({ deliveries: [delivery, second], next_cursor: "c2", total: 1234 }));
    render(
      <WebhooksPage api={fakeApi({ webhookDeliveries: read })} merchant={profile()} onSaved={vi.fn()} />,
      "/webhooks?range=7d&status=dead&type=test.ping&sort=created_at",
    );
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–2 of 1,234");
    expect(read).toHaveBeenLastCalledWith({
      id: profile().merchant_id,
      status: "dead",
      type: "test.ping",
      from: expect.stringMatching(/T00:00:00\.000Z$/),
      to: expect.stringMatching(/T00:00:00\.000Z$/),
      sort: "created_at",
      limit: 50,
      days: 7,
    });
    expect(screen.getByTestId(`delivery-status-${second.event_id}`).textContent).toBe("dead");
    expect(screen.getByRole("button", { name: `Copy event id ${delivery.event_id}` })).toBeTruthy();
    expect((screen.getByTestId("deliveries-status") as HTMLSelectElement).value).toBe("dead");
    expect((screen.getByTestId("deliveries-type") as HTMLSelectElement).value).toBe("test.ping");
  });

  it("a header click flips the sort in the URL; Next asks for the next page of the same sort", async () => {
    const read = vi
      .fn<MerchantApi["webhookDeliveries"]>()
      .mockResolvedValue(answer({ deliveries: [delivery], next_cursor: "c2", total: 60 }));
    render(
      <WebhooksPage api={fakeApi({ webhookDeliveries: read })} merchant={profile()} onSaved={vi.fn()} />,
      "/webhooks?range=7d",
    );
    await screen.findByTestId("list-count");
    const created = screen.getByTestId("sort-created_at").closest("th")!;
    expect(created.getAttribute("aria-sort")).toBe("none");
    expect(read.mock.lastCall?.[0]).not.toHaveProperty("sort");
    fireEvent.click(screen.getByTestId("sort-created_at"));
    await waitFor(() =>
      expect(read).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "-created_at" })),
    );
    expect(screen.getByTestId("search").textContent).toContain("sort=-created_at");
    fireEvent.click(screen.getByTestId("sort-created_at"));
    await waitFor(() =>
      expect(read).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "created_at" })),
    );
    expect(screen.getByTestId("sort-created_at").closest("th")!.getAttribute("aria-sort")).toBe("ascending");
    fireEvent.click(screen.getByTestId("deliveries-next"));
    await waitFor(() =>
      expect(read).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "created_at", cursor: "c2" })),
    );
  });

  it("applies the filters from the form into the URL; a refused filter shows the API's problem", async () => {
    const read = vi
      .fn<MerchantApi["webhookDeliveries"]>()
      .mockResolvedValueOnce(answer())
      .mockRejectedValue({
        type: "/docs/errors#validation_failed",
        title: "Validation failed",
        status: 400,
        detail: "status must be one of pending, delivered, failed, dead",
        code: "validation_failed",
        errors: [
          {
            path: "status",
            code: "invalid_value",
            message: "must be one of pending, delivered, failed, dead",
          },
        ],
      });
    render(
      <WebhooksPage api={fakeApi({ webhookDeliveries: read })} merchant={profile()} onSaved={vi.fn()} />,
      "/webhooks?range=7d",
    );
    expect((await screen.findByTestId("deliveries-empty")).textContent).toContain("No deliveries");
    expect(screen.getByTestId("list-count").textContent).toBe("0 of 0");
    fireEvent.change(screen.getByTestId("deliveries-status"), { target: { value: "failed" } });
    fireEvent.change(screen.getByTestId("deliveries-type"), { target: { value: "receipt.issued" } });
    fireEvent.click(screen.getByTestId("deliveries-apply"));
    await waitFor(() =>
      expect(read).toHaveBeenLastCalledWith(
        expect.objectContaining({ status: "failed", type: "receipt.issued", days: 7, limit: 50 }),
      ),
    );
    expect(screen.getByTestId("search").textContent).toMatch(/status=failed/);
    expect(screen.getByTestId("search").textContent).toMatch(/type=receipt\.issued/);
    expect(screen.getByTestId("search").textContent).toMatch(/range=7d/);
    expect(await screen.findByTestId("deliveries-problem")).toBeTruthy();
  });

  it("exports every CSV page of the filter and sort as one file with one header", async () => {
    const saved: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return "blob:test";
    });
    URL.revokeObjectURL = vi.fn();
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    const csvPage = vi
      .fn<MerchantApi["csvPage"]>()
      .mockResolvedValueOnce({ text: "created_at,event_id\r\n2026-01-01,'=cmd\r\n", next: "p2" })
      .mockResolvedValueOnce({ text: "created_at,event_id\r\n2026-01-02,evt_2\r\n", next: null });
    const read = vi.fn<MerchantApi["webhookDeliveries"]>().mockResolvedValue(answer());
    render(
      <WebhooksPage
        api={fakeApi({ webhookDeliveries: read, csvPage })}
        merchant={profile()}
        onSaved={vi.fn()}
      />,
      "/webhooks?range=7d&status=dead&sort=created_at",
    );
    await screen.findByTestId("deliveries-empty");
    fireEvent.click(screen.getByTestId("deliveries-export"));
    await waitFor(() => expect(saved).toHaveLength(1));
    const query = {
      status: "dead",
      from: expect.any(String),
      to: expect.any(String),
      sort: "created_at",
    };
    expect(csvPage).toHaveBeenNthCalledWith(1, "webhooks/deliveries", profile().merchant_id, query);
    expect(csvPage).toHaveBeenNthCalledWith(2, "webhooks/deliveries", profile().merchant_id, {
      ...query,
      cursor: "p2",
    });
    expect(await blobText(saved[0]!)).toBe("created_at,event_id\r\n2026-01-01,'=cmd\r\n2026-01-02,evt_2\r\n");
  });

  it("an export that fails shows why and saves nothing", async () => {
    URL.createObjectURL = vi.fn(() => "blob:test");
    const csvPage = vi.fn<MerchantApi["csvPage"]>().mockRejectedValue(new TypeError("offline"));
    const read = vi.fn<MerchantApi["webhookDeliveries"]>().mockResolvedValue(answer());
    render(
      <WebhooksPage
        api={fakeApi({ webhookDeliveries: read, csvPage })}
        merchant={profile()}
        onSaved={vi.fn()}
      />,
    );
    await screen.findByTestId("deliveries-empty");
    fireEvent.click(screen.getByTestId("deliveries-export"));
    expect((await screen.findByTestId("deliveries-export-problem")).textContent).toContain("Could not reach");
    expect(URL.createObjectURL).not.toHaveBeenCalled();
  });
  it("draws the chosen days' series: summary of the seeded counts, a preset reads again with its days", async () => {
    const series = {
      from: "2026-01-01",
      to: "2026-01-07",
      bucket: "day" as const,
      points: [
        point("2026-01-01T00:00:00Z", { delivered: 3, dead: 1 }),
        point("2026-01-02T00:00:00Z", { failed: 2, pending: 1 }),
      ],
    };
    const read = vi.fn().mockResolvedValue(answer({ series }));
    render(
      <WebhooksPage api={fakeApi({ webhookDeliveries: read })} merchant={profile()} onSaved={vi.fn()} />,
      "/webhooks?range=7d",
    );
    expect((await screen.findByTestId("webhook-chart-summary")).textContent).toBe(
      "7 webhook deliveries from 2026-01-01 to 2026-01-07 (per day): 3 delivered, 2 failed (retrying), 1 dead, 1 pending; success rate 75.0 %. Busiest day: 2026-01-01 with 4.",
    );
    expect(read).toHaveBeenLastCalledWith(expect.objectContaining({ id: profile().merchant_id, days: 7 }));
    // The list covers the same days as the chart: from the first day's midnight to the day after today.
    const query = read.mock.lastCall?.[0] as { from: string; to: string };
    expect(Date.parse(query.to) - Date.parse(query.from)).toBe(7 * 86_400_000);
    fireEvent.click(screen.getByTestId("webhooks-range-24h"));
    await vi.waitFor(() =>
      expect(read).toHaveBeenLastCalledWith(expect.objectContaining({ id: profile().merchant_id, days: 2 })),
    );
  });

  it("a window without deliveries shows the empty state, not a chart", async () => {
    const read = vi.fn().mockResolvedValue(answer());
    render(
      <WebhooksPage api={fakeApi({ webhookDeliveries: read })} merchant={profile()} onSaved={vi.fn()} />,
    );
    expect((await screen.findByTestId("webhook-chart-empty")).textContent).toBe(
      "No webhook deliveries from 2026-01-01 to 2026-01-02.",
    );
    expect(screen.queryByTestId("webhook-chart")).toBeNull();
  });
});
