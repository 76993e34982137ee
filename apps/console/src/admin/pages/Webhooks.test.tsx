import { fireEvent, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { deferred, renderAdmin } from "../test-admin";
import { WebhooksPage } from "./Webhooks";

const dead = {
  event_id: "evt_1111111111111111",
  merchant_id: "mrch_TestMerchant1234",
  type: "settlement.final",
  attempts: 8,
  last_status: 500,
  last_error: null,
  last_attempt_at: "2026-11-23T10:00:00Z",
};
const health = {
  totals: { delivered: 1, pending: 0, failed: 0, dead: 1, success_rate: 0.5 },
  dead_letters: [dead],
  endpoints: [],
  next_cursor: null,
  total: 0,
  series: {
    from: "2026-11-22",
    to: "2026-11-23",
    bucket: "hour",
    points: [
      { at: "2026-11-23T10:00:00Z", delivered: 1, failed: 0, dead: 1, pending: 0, success_rate: 0.5 },
      { at: "2026-11-23T11:00:00Z", delivered: 0, failed: 0, dead: 0, pending: 0, success_rate: null },
    ],
  },
};

describe("WebhooksPage (operator)", () => {
  it("holds Replay while the replay runs, so a double click queues the event once", async () => {
    const replayed = deferred<unknown>();
    const replay = vi.fn().mockReturnValue(replayed.promise);
    const webhooks = vi.fn().mockResolvedValue(health);
    renderAdmin(<WebhooksPage />, {
      dashboard: { webhooks: { query: webhooks }, replayWebhook: { mutate: replay } },
    });
    const button = (await screen.findByRole("button", {
      name: `Replay ${dead.event_id}`,
    })) as HTMLButtonElement;
    fireEvent.click(button);
    fireEvent.click(button);
    expect(button.disabled).toBe(true);
    expect(replay).toHaveBeenCalledOnce();
    replayed.resolve({ event_id: dead.event_id, previous_status: "dead" });
    expect((await screen.findByTestId("replay-notice")).textContent).toContain(dead.event_id);
    expect(button.disabled).toBe(false);
  });

  it("reads the series for the URL's range and merchant, and says what it draws", async () => {
    const webhooks = vi.fn().mockResolvedValue(health);
    renderAdmin(
      <WebhooksPage />,
      { dashboard: { webhooks: { query: webhooks } } },
      true,
      "/webhooks?range=custom&from=2026-11-22&to=2026-11-23&merchant=mrch_TestMerchant1234",
    );
    expect((await screen.findByTestId("webhook-chart-summary")).textContent).toBe(
      "2 webhook deliveries from 2026-11-22 to 2026-11-23 (per hour): 1 delivered, 0 failed (retrying), 1 dead, 0 pending; success rate 50.0 %. Busiest hour: 2026-11-23 10:00 UTC with 2.",
    );
    expect(webhooks).toHaveBeenLastCalledWith({
      limit: 50,
      from: "2026-11-22",
      to: "2026-11-23",
      merchant_id: "mrch_TestMerchant1234",
    });
    expect(screen.getByRole("heading", { name: /Success over time for mrch_TestMerchant1234/ })).toBeTruthy();
    // Clearing the merchant reads every merchant's series again.
    fireEvent.change(screen.getByTestId("webhook-merchant"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("webhook-merchant-apply"));
    await vi.waitFor(() =>
      expect(webhooks).toHaveBeenLastCalledWith({ limit: 50, from: "2026-11-22", to: "2026-11-23" }),
    );
  });
});
