import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import type { MerchantApi, MerchantDashboard } from "../../lib/trpc";
import { fakeApi, profile } from "../../test-fakes";
import { GetStarted } from "./GetStarted";

const ID = "mrch_TestMerchant1234";
const dashboard = (issued: number) => ({ receipts: { issued } }) as unknown as MerchantDashboard;
const delivery = (type: string, status: "delivered" | "failed") => ({
  event_id: "msg_1",
  type,
  status,
  attempts: 1,
  last_status: status === "delivered" ? 200 : 500,
  last_error: null,
  last_attempt_at: null,
  delivered_at: null,
  next_attempt_at: null,
  created_at: "2026-01-01T00:00:00.000Z",
});
const listing = (status: "pending" | "approved") => ({ id: "lst_1", status }) as never;

function renderStart(
  api: MerchantApi,
  merchant = profile({ network_mode: "test", settlement_chain: "amoy" }),
) {
  return render(
    <MemoryRouter>
      <GetStarted api={api} merchant={merchant} apiBaseUrl="http://127.0.0.1:3000" />
    </MemoryRouter>,
  );
}

const state = (name: string) => screen.getByTestId(`start-step-${name}`).getAttribute("data-done");

describe("GetStarted", () => {
  it("a new merchant: nothing done, the samples carry its id and the API origin", async () => {
    const api = fakeApi({
      currentGateway: vi.fn().mockResolvedValue(null),
      webhookDeliveries: vi.fn().mockResolvedValue({ merchant_id: ID, endpoint: null, deliveries: [] }),
      dashboard: vi.fn().mockResolvedValue(dashboard(0)),
      listListings: vi.fn().mockResolvedValue([]),
    });
    renderStart(api);
    expect((await screen.findByTestId("start-progress")).textContent).toBe("0 of 4 done");
    for (const name of ["gate", "webhook", "paid-call", "listing"]) expect(state(name)).toBe("false");
    const sample = screen.getByTestId("start-gate-sample").textContent ?? "";
    expect(sample).toContain(`merchantId: "${ID}"`);
    expect(sample).toContain('apiBaseUrl: "http://127.0.0.1:3000"');
    const commands = screen.getByTestId("start-paid-call-commands").textContent ?? "";
    expect(commands).toContain(`TOLLGATE_MERCHANT_ID='${ID}'`);
    expect(commands).toContain('"80002=$(node -p');
    expect(
      within(screen.getByTestId("start-step-webhook"))
        .getByTestId("start-webhooks-link")
        .getAttribute("href"),
    ).toBe("/webhooks");
    expect(screen.getByTestId("start-listings-link").getAttribute("href")).toBe("/listings");
    expect(api.dashboard).toHaveBeenCalledWith(365);
  });

  it("progress comes from the API's state: route, delivered test event, a paid call, an approved listing", async () => {
    const api = fakeApi({
      currentGateway: vi.fn().mockResolvedValue({ gateway_url: "http://127.0.0.1:3000/g/acme" } as never),
      webhookDeliveries: vi.fn().mockResolvedValue({
        merchant_id: ID,
        endpoint: null,
        deliveries: [delivery("settlement.confirmed", "failed"), delivery("test.ping", "delivered")],
      }),
      dashboard: vi.fn().mockResolvedValue(dashboard(2)),
      listListings: vi.fn().mockResolvedValue([listing("approved")]),
    });
    renderStart(
      api,
      profile({ network_mode: "test", settlement_chain: "amoy", webhook_url: "https://h.example/w" }),
    );
    expect((await screen.findByTestId("start-progress")).textContent).toBe("4 of 4 done");
    expect(screen.getByTestId("start-gateway-url").textContent).toBe("http://127.0.0.1:3000/g/acme");
    expect(screen.getByTestId("start-step-paid-call").textContent).toContain("2 paid calls so far.");
  });

  it("a failed test event, a pending listing and an unreadable part are not done", async () => {
    const api = fakeApi({
      currentGateway: vi.fn().mockResolvedValue(null),
      webhookDeliveries: vi.fn().mockResolvedValue({
        merchant_id: ID,
        endpoint: null,
        deliveries: [delivery("test.ping", "failed")],
      }),
      dashboard: vi.fn().mockRejectedValue(new Error("down")),
      listListings: vi.fn().mockResolvedValue([listing("pending")]),
    });
    renderStart(
      api,
      profile({ network_mode: "test", settlement_chain: "amoy", webhook_url: "https://h.example/w" }),
    );
    expect((await screen.findByTestId("start-progress")).textContent).toBe("0 of 4 done");
    expect(screen.getByTestId("start-step-webhook").textContent).toContain("No test event delivered yet.");
    expect(screen.getByTestId("start-step-listing").textContent).toContain("waits for an operator's review");
    expect(screen.getByTestId("start-step-paid-call").textContent).toContain(
      "Could not check the paid calls.",
    );
  });

  it("a live merchant gets no test paid call commands", async () => {
    const api = fakeApi({
      currentGateway: vi.fn().mockResolvedValue(null),
      webhookDeliveries: vi.fn().mockResolvedValue({ merchant_id: ID, endpoint: null, deliveries: [] }),
      dashboard: vi.fn().mockResolvedValue(dashboard(0)),
      listListings: vi.fn().mockResolvedValue([]),
    });
    renderStart(api, profile({ network_mode: "live", settlement_chain: "polygon" }));
    expect((await screen.findByTestId("start-paid-call-live")).textContent).toContain("live network");
    expect(screen.queryByTestId("start-paid-call-commands")).toBeNull();
  });
});
