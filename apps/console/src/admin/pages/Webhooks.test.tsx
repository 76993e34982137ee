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
});
