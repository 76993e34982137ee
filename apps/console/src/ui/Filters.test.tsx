import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { FilterForm, pick, SelectFilter, TextFilter } from "./Filters";

describe("FilterForm", () => {
  it("applies the filled fields, trimmed, and leaves the empty ones out", () => {
    const onApply = vi.fn();
    render(
      <FilterForm onApply={onApply}>
        <SelectFilter label="State" name="state" defaultValue="" options={["", "final"]} />
        <TextFilter label="Payer" name="payer" />
        <TextFilter label="Asset" name="asset" />
      </FilterForm>,
    );
    fireEvent.change(screen.getByLabelText("Payer"), { target: { value: "  0xabc " } });
    fireEvent.click(screen.getByRole("button", { name: "Filter" }));
    expect(onApply).toHaveBeenCalledWith({ payer: "0xabc" });
  });

  it("pick keeps only the named filters", () => {
    expect(pick({ from: "2026-01-01", other: "x" }, ["from", "to"])).toEqual({ from: "2026-01-01" });
  });
});
