import { fireEvent, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { deferred, renderAdmin } from "../test-admin";
import { ModerationPage } from "./Moderation";

const listing = {
  id: "lst_1",
  merchant_id: "mrch_TestMerchant1234",
  merchant_name: "Acme Search",
  route: "/search",
  title: "Web search",
  category: "search",
  description: null,
  revision: 2,
  status: "pending",
  rejection_reason: null,
  updated_at: "2026-11-23T10:00:00Z",
};

describe("ModerationPage", () => {
  it("holds Approve while the approval runs, so a double click approves once", async () => {
    const approval = deferred<unknown>();
    const approve = vi.fn().mockReturnValue(approval.promise);
    const queue = vi.fn().mockResolvedValue({ listings: [listing], next_cursor: null });
    renderAdmin(<ModerationPage />, {
      admin: { marketplace: { queue: { query: queue }, approve: { mutate: approve } } },
    });
    const button = (await screen.findByTestId("approve-lst_1")) as HTMLButtonElement;
    fireEvent.click(button);
    fireEvent.click(button);
    expect(button.disabled).toBe(true);
    expect(approve).toHaveBeenCalledOnce();
    expect(approve).toHaveBeenCalledWith({ id: "lst_1", revision: 2 });
    approval.resolve({});
    expect((await screen.findByTestId("moderation-notice")).textContent).toContain("Approved “Web search”");
    expect(button.disabled).toBe(false);
  });
});
