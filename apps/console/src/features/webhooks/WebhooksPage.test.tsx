import { fireEvent, render as renderDom, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { fakeApi, profile } from "../../test-fakes";
import { deliveriesCsv, WebhooksPage } from "./WebhooksPage";

/** The page reads its date range from the URL (decision 0073). */
const render = (ui: ReactNode, path = "/webhooks") =>
  renderDom(<MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>);

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
          series: emptySeries,
        })
        .mockResolvedValue({
          merchant_id: merchant.merchant_id,
          endpoint: { status: "active", disabled_reason: null, rotated_at: "x" },
          deliveries: [delivery],
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

  it("exports the listed deliveries as CSV with hostile error text neutralised, and copies an event id", async () => {
    const hostile = {
      ...delivery,
      event_id: "evt_2",
      status: "failed" as const,
      last_error: "=cmd|' /C calc'!A0",
    };
    expect(deliveriesCsv([delivery, hostile])).toBe(
      "created_at,event_id,type,status,attempts,last_status,last_error,last_attempt_at,delivered_at,next_attempt_at\r\n" +
        "2026-01-01T00:00:00.000Z,evt_1111111111111111,test.ping,delivered,1,204,,2026-01-01T00:00:01.000Z,2026-01-01T00:00:01.000Z,\r\n" +
        "2026-01-01T00:00:00.000Z,evt_2,test.ping,failed,1,204,'=cmd|' /C calc'!A0,2026-01-01T00:00:01.000Z,2026-01-01T00:00:01.000Z,\r\n",
    );
    const api = fakeApi({
      webhookDeliveries: vi
        .fn()
        .mockResolvedValue({ merchant_id: "m", endpoint: null, deliveries: [delivery], series: emptySeries }),
    });
    render(<WebhooksPage api={api} merchant={profile()} onSaved={vi.fn()} />);
    expect((await screen.findByTestId("deliveries-export")).textContent).toBe("Export CSV (1)");
    expect(screen.getByRole("button", { name: `Copy event id ${delivery.event_id}` })).toBeTruthy();
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
    const read = vi.fn().mockResolvedValue({ merchant_id: "m", endpoint: null, deliveries: [], series });
    render(
      <WebhooksPage api={fakeApi({ webhookDeliveries: read })} merchant={profile()} onSaved={vi.fn()} />,
      "/webhooks?range=7d",
    );
    expect((await screen.findByTestId("webhook-chart-summary")).textContent).toBe(
      "7 webhook deliveries from 2026-01-01 to 2026-01-07 (per day): 3 delivered, 2 failed (retrying), 1 dead, 1 pending; success rate 75.0 %. Busiest day: 2026-01-01 with 4.",
    );
    expect(read).toHaveBeenLastCalledWith(profile().merchant_id, 7);
    fireEvent.click(screen.getByTestId("webhooks-range-24h"));
    await vi.waitFor(() => expect(read).toHaveBeenLastCalledWith(profile().merchant_id, 2));
  });

  it("a window without deliveries shows the empty state, not a chart", async () => {
    const read = vi
      .fn()
      .mockResolvedValue({ merchant_id: "m", endpoint: null, deliveries: [], series: emptySeries });
    render(
      <WebhooksPage api={fakeApi({ webhookDeliveries: read })} merchant={profile()} onSaved={vi.fn()} />,
    );
    expect((await screen.findByTestId("webhook-chart-empty")).textContent).toBe(
      "No webhook deliveries from 2026-01-01 to 2026-01-02.",
    );
    expect(screen.queryByTestId("webhook-chart")).toBeNull();
  });
});
