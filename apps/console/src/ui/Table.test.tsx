import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { rangeLabel } from "./Pager";
import { DataTable } from "./Table";

type Row = { id: string; at: string };
const rows: Row[] = [
  { id: "1", at: "2026-01-01" },
  { id: "2", at: "2026-01-02" },
];
const columns = [
  { header: "Id", cell: (row: Row) => row.id, sortKey: "id" },
  { header: "Seen", cell: (row: Row) => row.at, sortKey: "seen_at" },
  { header: "Note", cell: () => "-" },
];

describe("DataTable sorting", () => {
  it("marks the sorted column with aria-sort, the other sortable ones none, and asks to sort on click", () => {
    const onSort = vi.fn();
    render(
      <DataTable
        rows={rows}
        columns={columns}
        rowKey={(row) => row.id}
        testId="t"
        sort={{ key: "seen_at", direction: "desc" }}
        onSort={onSort}
      />,
    );
    const headers = screen.getAllByRole("columnheader");
    expect(headers.map((th) => th.getAttribute("aria-sort"))).toEqual(["none", "descending", null]);
    fireEvent.click(screen.getByRole("button", { name: /Id/ }));
    expect(onSort).toHaveBeenCalledWith("id");
    expect(screen.queryByRole("button", { name: /Note/ })).toBeNull();
  });

  it("without onSort the headers stay plain text", () => {
    render(<DataTable rows={rows} columns={columns} rowKey={(row) => row.id} testId="t" />);
    expect(screen.queryAllByRole("button")).toHaveLength(0);
    expect(screen.getAllByRole("columnheader").every((th) => !th.hasAttribute("aria-sort"))).toBe(true);
  });
});

describe("rangeLabel", () => {
  it("places the page within the exact total, thousands grouped", () => {
    expect(rangeLabel(1, 50, 50, 1234)).toBe("1–50 of 1,234");
    expect(rangeLabel(25, 50, 34, 1234)).toBe("1,201–1,234 of 1,234");
    expect(rangeLabel(1, 50, 0, 0)).toBe("0 of 0");
  });
});
