import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { Listing } from "../../lib/trpc";
import { fakeApi, profile } from "../../test-fakes";
import { ListingsPage } from "./ListingsPage";

function listing(overrides: Partial<Listing> = {}): Listing {
  return {
    id: "lst_1111111111111111",
    route: "/search",
    category: "search",
    title: "Web search",
    description: null,
    tier: "standard",
    method: null,
    base_url: null,
    input_schema: null,
    output_schema: null,
    status: "pending",
    revision: 1,
    rejection_reason: null,
    published: null,
    live_revision: null,
    pending_revision: null,
    suspension_reason: null,
    suspended_at: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

/** A revision view with `overrides`. */
function revision(
  overrides: Partial<NonNullable<Listing["live_revision"]>> = {},
): NonNullable<Listing["live_revision"]> {
  return {
    id: "lrev_1111111111111111111111",
    number: 1,
    status: "approved",
    cause: "listing_created",
    route: "/search",
    category: "search",
    title: "Web search",
    description: null,
    tier: "standard",
    method: null,
    base_url: null,
    input_schema: null,
    output_schema: null,
    merchant_name: "Acme",
    gateway: null,
    reason: null,
    created_at: "2026-01-01T00:00:00.000Z",
    decided_at: null,
    ...overrides,
  };
}

describe("ListingsPage", () => {
  it("shows a suspension reason, and the live revision beside the pending one", async () => {
    const suspended = listing({
      status: "suspended",
      suspension_reason: "Upstream serves malware",
      live_revision: revision(),
      pending_revision: revision({
        id: "lrev_2222222222222222222222",
        number: 2,
        status: "pending",
        merchant_name: "Acme Renamed",
      }),
    });
    const api = fakeApi({ listListings: vi.fn().mockResolvedValue([suspended]) });
    render(<ListingsPage api={api} merchant={profile()} />);
    expect((await screen.findByTestId(`listing-suspension-${suspended.id}`)).textContent).toContain(
      "Upstream serves malware",
    );
    const changed = screen.getAllByTestId(`listing-diff-${suspended.id}-changed`).map((e) => e.textContent);
    expect(changed).toEqual(["Acme Renamed"]);
  });

  it("shows a rejected listing's reason and resubmits it as a new revision", async () => {
    const rejected = listing({ status: "rejected", rejection_reason: "Route answers 404" });
    const api = fakeApi({
      listListings: vi
        .fn()
        .mockResolvedValueOnce([rejected])
        .mockResolvedValue([listing({ revision: 2 })]),
      updateListing: vi.fn().mockResolvedValue(listing({ revision: 2 })),
    });
    const merchant = profile();
    render(<ListingsPage api={api} merchant={merchant} />);
    expect((await screen.findByTestId(`listing-reason-${rejected.id}`)).textContent).toContain(
      "Route answers 404",
    );
    fireEvent.click(screen.getByRole("button", { name: "Resubmit Web search" }));
    expect((await screen.findByTestId("listings-notice")).textContent).toBe("Resubmitted for review.");
    expect(api.updateListing).toHaveBeenCalledWith({
      id: merchant.merchant_id,
      listing_id: rejected.id,
      title: "Web search",
    });
    expect((await screen.findByTestId(`listing-status-${rejected.id}`)).textContent).toBe(
      "pending (revision 2)",
    );
  });

  it("creates a listing from the form; the empty state first", async () => {
    const api = fakeApi({
      listListings: vi.fn().mockResolvedValueOnce([]).mockResolvedValue([listing()]),
      createListing: vi.fn().mockResolvedValue(listing()),
    });
    render(<ListingsPage api={api} merchant={profile()} />);
    expect(await screen.findByTestId("listings-empty")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Route"), { target: { value: " /search " } });
    fireEvent.change(screen.getByLabelText("Title"), { target: { value: "Web search" } });
    fireEvent.change(screen.getByLabelText("Category"), { target: { value: "data" } });
    fireEvent.click(screen.getByTestId("listing-submit"));
    expect((await screen.findByTestId("listings-notice")).textContent).toBe(
      "Listing created: it waits for review.",
    );
    expect(api.createListing).toHaveBeenCalledWith({
      id: "mrch_TestMerchant1234",
      route: "/search",
      title: "Web search",
      category: "data",
      tier: "standard",
    });
  });
});
