import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MerchantApi, MerchantSettlementsPage } from "../../lib/trpc";
import { fakeApi, profile } from "../../test-fakes";
import { forgetCarriedRange } from "../../ui/DateRange";
import { SettlementsPage } from "./SettlementsPage";

const merchant = profile();
const id = merchant.merchant_id;

function settlement(n: number, explorerUrl: string | null): MerchantSettlementsPage["settlements"][number] {
  return {
    id: String(n),
    network: "polygon",
    chain_id: 137,
    tx_hash: `0x${String(n).repeat(64)}`,
    log_index: 0,
    block_number: String(100 + n),
    explorer_url: explorerUrl,
    payer: `0x${"cd".repeat(20)}`,
    merchant_address: `0x${"52".repeat(20)}`,
    merchant_id: id,
    token: `0x${"00".repeat(20)}`,
    asset: "POL",
    total_amount: "1000000000000000000",
    merchant_amount: "990000000000000000",
    treasury_amount: "10000000000000000",
    ip_creator_amount: "0",
    order_id: `qt_order${n}`,
    quote_id: null,
    bridge_order_id: null,
    scheme: "splitter",
    channel_id: null,
    state: "final",
    seen_at: `2026-01-0${n}T00:00:00.000Z`,
    confirmed_at: null,
    final_at: null,
    orphaned_at: null,
  };
}

function renderAt(url: string, api: MerchantApi) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route path="*" element={<SettlementsPage api={api} merchant={merchant} />} />
      </Routes>
    </MemoryRouter>,
  );
}

beforeEach(() => forgetCarriedRange());
afterEach(() => vi.restoreAllMocks());

describe("SettlementsPage (decision 0076)", () => {
  it("asks for the range and filters in the URL; explorer links only where the API sends one", async () => {
    const settlements = vi.fn<MerchantApi["settlements"]>().mockResolvedValue({
      settlements: [settlement(1, "https://polygonscan.com"), settlement(2, null)],
      next_cursor: null,
      total: 2,
    });
    renderAt(
      "/settlements?range=custom&from=2026-01-01&to=2026-01-02&network=polygon",
      fakeApi({ settlements }),
    );
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–2 of 2");
    expect(settlements).toHaveBeenLastCalledWith({
      id,
      network: "polygon",
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-01-03T00:00:00.000Z",
      limit: 50,
    });
    // Default order: neither header claims a sort the URL does not name.
    expect(screen.getByTestId("sort-seen_at").closest("th")!.getAttribute("aria-sort")).toBe("none");
    const hrefs = [...document.querySelectorAll("a")].map((link) => link.getAttribute("href"));
    expect(hrefs).toContain(`https://polygonscan.com/tx/0x${"1".repeat(64)}`);
    expect(hrefs).toContain("https://polygonscan.com/block/101");
    expect(hrefs.some((href) => href?.includes("2".repeat(64)))).toBe(false);
    // The local chain's hash has its copy button all the same.
    expect(screen.getByLabelText(`Copy transaction hash 0x${"2".repeat(64)}`)).toBeTruthy();
    expect(screen.getByTestId("settlement-state-1").textContent).toBe("final");
    expect(screen.getByTestId("settlement-scheme-1").textContent).toBe("Splitter");
  });

  it("labels a session claim by its scheme and names its channel instead of an order", async () => {
    const channel = `0x${"ab".repeat(32)}`;
    const claim = {
      ...settlement(3, null),
      scheme: "batch-settlement" as const,
      channel_id: channel,
      order_id: "",
      treasury_amount: "0",
      merchant_amount: "1000000000000000000",
    };
    const settlements = vi
      .fn<MerchantApi["settlements"]>()
      .mockResolvedValue({ settlements: [settlement(1, null), claim], next_cursor: null, total: 2 });
    renderAt("/settlements?range=7d", fakeApi({ settlements }));
    await screen.findByTestId("list-count");
    expect(screen.getByTestId("settlement-scheme-3").textContent).toBe("Session (batch)");
    expect(screen.getByTestId("settlement-scheme-1").textContent).toBe("Splitter");
    expect(screen.getByLabelText(`Copy channel id ${channel}`)).toBeTruthy();
    expect(screen.getByLabelText("Copy order id qt_order1")).toBeTruthy();
  });

  it("a header click sorts by that column, descending first, and a second click flips it", async () => {
    const settlements = vi
      .fn<MerchantApi["settlements"]>()
      .mockResolvedValue({ settlements: [settlement(1, null)], next_cursor: null, total: 1 });
    renderAt("/settlements?range=7d", fakeApi({ settlements }));
    await screen.findByTestId("list-count");
    fireEvent.click(screen.getByTestId("sort-seen_at"));
    await waitFor(() =>
      expect(settlements).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "-seen_at" })),
    );
    expect(screen.getByTestId("sort-seen_at").closest("th")!.getAttribute("aria-sort")).toBe("descending");
    fireEvent.click(screen.getByTestId("sort-seen_at"));
    await waitFor(() =>
      expect(settlements).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "seen_at" })),
    );
    fireEvent.click(screen.getByTestId("sort-id"));
    await waitFor(() =>
      expect(settlements).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "-id" })),
    );
    expect(screen.getByTestId("sort-id").closest("th")!.getAttribute("aria-sort")).toBe("descending");
  });

  it("a failed read shows the problem and a retry that reads again", async () => {
    const settlements = vi
      .fn<MerchantApi["settlements"]>()
      .mockRejectedValueOnce(new TypeError("offline"))
      .mockResolvedValue({ settlements: [], next_cursor: null, total: 0 });
    renderAt("/settlements?range=7d", fakeApi({ settlements }));
    expect((await screen.findByTestId("settlements-list-problem")).textContent).toContain("Could not reach");
    fireEvent.click(screen.getByText("Try again"));
    expect((await screen.findByTestId("empty")).textContent).toContain("No settlements");
    expect(screen.getByTestId("list-count").textContent).toBe("0 of 0");
  });
});
