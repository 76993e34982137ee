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
  status: "approved",
  rejection_reason: null,
  suspension_reason: null,
  live_revision: revisionOf({ id: "lrev_live", number: 1, merchant_name: "Acme Search" }),
  pending_revision: revisionOf({
    id: "lrev_pending",
    number: 2,
    merchant_name: "Acme Impostor",
    gateway: {
      slug: "acme",
      upstream_url: "https://evil.example.com/very/long/upstream/path",
      tier: "standard",
    },
  }),
  updated_at: "2026-11-23T10:00:00Z",
};

function revisionOf(overrides: Record<string, unknown>) {
  return {
    route: "/search",
    title: "Web search",
    category: "search",
    description: null,
    tier: "standard",
    method: null,
    base_url: null,
    gateway: null,
    ...overrides,
  };
}

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
    expect(approve).toHaveBeenCalledWith({ id: "lst_1", revision_id: "lrev_pending" });
    approval.resolve({});
    expect((await screen.findByTestId("moderation-notice")).textContent).toContain("Approved “Web search”");
    expect(button.disabled).toBe(false);
  });

  it("shows the live revision beside the pending one, the changed fields marked", async () => {
    const queue = vi.fn().mockResolvedValue({ listings: [listing], next_cursor: null });
    renderAdmin(<ModerationPage />, { admin: { marketplace: { queue: { query: queue } } } });
    await screen.findByTestId("diff-lst_1");
    const changed = screen.getAllByTestId("diff-lst_1-changed").map((e) => e.textContent);
    expect(changed).toEqual([
      "Acme Impostor",
      "/g/acme → https://evil.example.com/very/long/upstream/path (standard)",
    ]);
  });

  it("unpublishes an approved listing with the reason typed", async () => {
    const suspend = vi.fn().mockResolvedValue({});
    const queue = vi.fn().mockResolvedValue({ listings: [listing], next_cursor: null });
    renderAdmin(<ModerationPage />, {
      admin: { marketplace: { queue: { query: queue }, suspend: { mutate: suspend } } },
    });
    fireEvent.click(await screen.findByTestId("unpublish-lst_1"));
    fireEvent.change(await screen.findByTestId("suspend-reason"), { target: { value: "Impersonation" } });
    fireEvent.click(screen.getByTestId("suspend-confirm"));
    expect((await screen.findByTestId("moderation-notice")).textContent).toContain(
      "Unpublished “Web search”",
    );
    expect(suspend).toHaveBeenCalledWith({ id: "lst_1", reason: "Impersonation" });
  });
});
