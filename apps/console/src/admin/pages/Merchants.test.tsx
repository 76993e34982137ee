import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderAdmin } from "../test-admin";
import { MerchantsPage } from "./Merchants";

const merchant = (n: number) => ({
  id: `mrch_${n}`,
  name: n === 2 ? "=HYPERLINK(1)" : `M${n}`,
  pay_to: { evm: `0x${"1".repeat(40)}` },
  network_mode: "test",
  settlement_chain: "amoy",
  settlement_version: "v1.2",
  webhook_url: null,
  created_at: `2026-01-0${n}T00:00:00.000Z`,
  updated_at: `2026-01-0${n}T00:00:00.000Z`,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("MerchantsPage sort, total and export", () => {
  it("sends the URL's sort, shows the exact total, and exports every page as one formula-safe CSV", async () => {
    const query = vi.fn(async ({ cursor, limit }: { cursor?: string; limit: number }) =>
      limit === 100 && cursor === undefined
        ? { merchants: [merchant(1), merchant(2)], next_cursor: "p2", total: 3 }
        : limit === 100
          ? { merchants: [merchant(3)], next_cursor: null, total: 3 }
          : { merchants: [merchant(1), merchant(2), merchant(3)], next_cursor: null, total: 3 },
    );
    let saved: Blob | undefined;
    vi.spyOn(URL, "createObjectURL").mockImplementation((blob) => {
      saved = blob as Blob;
      return "blob:x";
    });
    vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    renderAdmin(<MerchantsPage />, { adminRead: { merchants: { query } } }, true, "/?sort=created_at");
    expect((await screen.findByTestId("list-count")).textContent).toBe("1–3 of 3");
    expect(query).toHaveBeenCalledWith({ sort: "created_at", limit: 25 });
    expect(screen.getByRole("columnheader", { name: /Created/ }).getAttribute("aria-sort")).toBe("ascending");
    fireEvent.click(screen.getByTestId("merchants-export"));
    await waitFor(() => expect(saved).toBeDefined());
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(saved as Blob);
    });
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain(",'=HYPERLINK(1),");
    expect(query).toHaveBeenCalledWith({ sort: "created_at", cursor: "p2", limit: 100 });
  });
});
