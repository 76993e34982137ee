import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { fakeApi, profile } from "../../test-fakes";
import { deliveriesCsv, WebhooksPage } from "./WebhooksPage";

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
        .mockResolvedValueOnce({ merchant_id: merchant.merchant_id, endpoint: null, deliveries: [] })
        .mockResolvedValue({
          merchant_id: merchant.merchant_id,
          endpoint: { status: "active", disabled_reason: null, rotated_at: "x" },
          deliveries: [delivery],
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
    expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy();
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
        .mockResolvedValue({ merchant_id: "m", endpoint: null, deliveries: [delivery] }),
    });
    render(<WebhooksPage api={api} merchant={profile()} onSaved={vi.fn()} />);
    expect((await screen.findByTestId("deliveries-export")).textContent).toBe("Export CSV (1)");
    expect(screen.getByRole("button", { name: `Copy event id ${delivery.event_id}` })).toBeTruthy();
  });
});
