import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MerchantApi, MerchantReceiptsPage } from "../../lib/trpc";
import { fakeApi, profile } from "../../test-fakes";
import { forgetCarriedRange } from "../../ui/DateRange";
import { ReceiptsPage } from "./ReceiptsPage";

const merchant = profile();
const id = merchant.merchant_id;
const JANUARY = "/receipts?range=custom&from=2026-01-01&to=2026-01-31";

function receipt(n: number): MerchantReceiptsPage["receipts"][number] {
  return {
    id: `rcpt_${n}abc`,
    quote_id: `qt_${n}abc`,
    resource: "/search",
    tier: "standard",
    units: 1,
    amount_micro_usd: "1000",
    asset: "USDC",
    amount: "1500000",
    payer: `0x${"ab".repeat(20)}`,
    network: "polygon",
    chain_id: 137,
    tx_hash: `0x${String(n).repeat(64)}`,
    log_index: 0,
    block_number: "100",
    explorer_url: "https://polygonscan.com",
    quota: 10,
    state: n === 2 ? "revoked" : "valid",
    state_changed_at: null,
    issued_at: `2026-01-0${n}T00:00:00.000Z`,
    expires_at: `2026-02-0${n}T00:00:00.000Z`,
  };
}

function renderAt(url: string, api: MerchantApi) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route path="*" element={<ReceiptsPage api={api} merchant={merchant} />} />
      </Routes>
    </MemoryRouter>,
  );
}

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

describe("ReceiptsPage (decision 0076)", () => {
  it("asks for the URL's range, filters and sort; shows the rows, the total, links and copy buttons", async () => {
    const receipts = vi
      .fn<MerchantApi["receipts"]>()
      .mockResolvedValue({ receipts: [receipt(1), receipt(2)], next_cursor: "c2", total: 1234 });
    renderAt(`${JANUARY}&state=revoked&sort=issued_at`, fakeApi({ receipts }));
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–2 of 1,234");
    expect(receipts).toHaveBeenLastCalledWith({
      id,
      state: "revoked",
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-02-01T00:00:00.000Z",
      sort: "issued_at",
      limit: 50,
    });
    expect(screen.getByTestId(`receipt-state-rcpt_2abc`).textContent).toBe("revoked");
    expect(screen.getAllByText("1.5 USDC")).toHaveLength(2);
    const tx = [...document.querySelectorAll("a")].find((link) =>
      link.getAttribute("href")?.includes("/tx/"),
    );
    expect(tx?.getAttribute("href")).toBe(`https://polygonscan.com/tx/0x${"1".repeat(64)}`);
    expect(screen.getByLabelText("Copy receipt id rcpt_1abc")).toBeTruthy();
    // The copy button sits beside the link, never inside it.
    expect(tx?.querySelector("button")).toBeNull();
  });

  it("a header click flips the sort in the URL; Next asks for the next page of the same sort", async () => {
    const receipts = vi
      .fn<MerchantApi["receipts"]>()
      .mockResolvedValue({ receipts: [receipt(1), receipt(2)], next_cursor: "c2", total: 1234 });
    renderAt(`${JANUARY}&sort=issued_at`, fakeApi({ receipts }));
    await screen.findByTestId("list-count");
    const issued = screen.getByTestId("sort-issued_at").closest("th")!;
    expect(issued.getAttribute("aria-sort")).toBe("ascending");
    fireEvent.click(screen.getByTestId("sort-issued_at"));
    await waitFor(() =>
      expect(receipts).toHaveBeenLastCalledWith(expect.objectContaining({ sort: "-issued_at" })),
    );
    expect(screen.getByTestId("sort-issued_at").closest("th")!.getAttribute("aria-sort")).toBe("descending");
    fireEvent.click(screen.getByTestId("receipts-next"));
    await waitFor(() =>
      expect(receipts).toHaveBeenLastCalledWith(
        expect.objectContaining({ sort: "-issued_at", cursor: "c2" }),
      ),
    );
  });

  it("applies the filters from the form, keeping the range; a refused filter shows the API's problem", async () => {
    const receipts = vi
      .fn<MerchantApi["receipts"]>()
      .mockResolvedValueOnce({ receipts: [], next_cursor: null, total: 0 })
      .mockRejectedValue({
        type: "/docs/errors#validation_failed",
        title: "Validation failed",
        status: 400,
        detail: "payer must be 0x + 40 hex digits",
        code: "validation_failed",
        errors: [{ path: "payer", code: "invalid_format", message: "must be 0x + 40 hex digits" }],
      });
    renderAt(JANUARY, fakeApi({ receipts }));
    expect((await screen.findByTestId("empty")).textContent).toContain("No receipts");
    expect(screen.getByTestId("list-count").textContent).toBe("0 of 0");
    fireEvent.change(screen.getByTestId("receipts-payer"), { target: { value: "0x12" } });
    fireEvent.change(screen.getByTestId("receipts-state"), { target: { value: "valid" } });
    fireEvent.click(screen.getByTestId("receipts-apply"));
    await waitFor(() =>
      expect(receipts).toHaveBeenLastCalledWith({
        id,
        payer: "0x12",
        state: "valid",
        from: "2026-01-01T00:00:00.000Z",
        to: "2026-02-01T00:00:00.000Z",
        limit: 50,
      }),
    );
    expect(await screen.findByTestId("receipts-list-problem")).toBeTruthy();
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
      .mockResolvedValueOnce({ text: "receipt_id,payer\r\nrcpt_1,'=cmd\r\n", next: "p2" })
      .mockResolvedValueOnce({ text: "receipt_id,payer\r\nrcpt_2,0xab\r\n", next: null });
    const receipts = vi
      .fn<MerchantApi["receipts"]>()
      .mockResolvedValue({ receipts: [], next_cursor: null, total: 0 });
    renderAt(`${JANUARY}&network=polygon&sort=issued_at`, fakeApi({ receipts, csvPage }));
    await screen.findByTestId("empty");
    fireEvent.click(screen.getByTestId("receipts-export"));
    await waitFor(() => expect(saved).toHaveLength(1));
    const query = {
      network: "polygon",
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-02-01T00:00:00.000Z",
      sort: "issued_at",
    };
    expect(csvPage).toHaveBeenNthCalledWith(1, "receipts", id, query);
    expect(csvPage).toHaveBeenNthCalledWith(2, "receipts", id, { ...query, cursor: "p2" });
    expect(await blobText(saved[0]!)).toBe("receipt_id,payer\r\nrcpt_1,'=cmd\r\nrcpt_2,0xab\r\n");
  });

  it("an export that fails shows why and saves nothing", async () => {
    URL.createObjectURL = vi.fn(() => "blob:test");
    const csvPage = vi.fn<MerchantApi["csvPage"]>().mockRejectedValue(new TypeError("offline"));
    const receipts = vi
      .fn<MerchantApi["receipts"]>()
      .mockResolvedValue({ receipts: [], next_cursor: null, total: 0 });
    renderAt(JANUARY, fakeApi({ receipts, csvPage }));
    await screen.findByTestId("empty");
    fireEvent.click(screen.getByTestId("receipts-export"));
    expect((await screen.findByTestId("receipts-export-problem")).textContent).toContain("Could not reach");
    expect(URL.createObjectURL).not.toHaveBeenCalled();
  });
});
