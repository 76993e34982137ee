import { fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
import { DateRangeControl, forgetCarriedRange, useDateRange } from "./DateRange";
import { customRange, presetRange } from "./dateRange";

function Where() {
  const location = useLocation();
  return <output data-testid="where">{`${location.pathname}${location.search}`}</output>;
}

function Page({ allowCustom = true }: { allowCustom?: boolean }) {
  const dates = useDateRange({ allowCustom });
  return (
    <>
      <DateRangeControl state={dates} />
      <output data-testid="days">{`${dates.range.from}..${dates.range.to} ${dates.range.days}`}</output>
      <Where />
    </>
  );
}

function at(url: string, allowCustom = true) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route path="*" element={<Page allowCustom={allowCustom} />} />
      </Routes>
    </MemoryRouter>,
  );
}

const NOW = Date.parse("2026-11-23T15:00:00Z");

describe("date range (decision 0073)", () => {
  beforeEach(() => forgetCarriedRange());
  it("presets span whole UTC days up to today; 24 h is yesterday and today", () => {
    expect(presetRange("24h", NOW)).toEqual({ choice: "24h", from: "2026-11-22", to: "2026-11-23", days: 2 });
    expect(presetRange("7d", NOW)).toMatchObject({ from: "2026-11-17", days: 7 });
    expect(presetRange("90d", NOW)).toMatchObject({ from: "2026-08-26", days: 90 });
  });

  it("a reversed custom range names the From field; a missing or bad day names its own field", () => {
    expect(customRange("2026-11-23", "2026-11-01")).toMatchObject({ ok: false, problem: { field: "from" } });
    expect(customRange("2026-11-01", "")).toMatchObject({ ok: false, problem: { field: "to" } });
    expect(customRange("2026-02-31x", "2026-03-01")).toMatchObject({ ok: false, problem: { field: "from" } });
    expect(customRange("2026-11-01", "2026-11-01")).toMatchObject({ ok: true, range: { days: 1 } });
  });

  it("puts the range in the URL: a preset, then a custom pair", () => {
    at("/fees");
    expect(screen.getByTestId("where").textContent).toBe("/fees?range=30d");
    fireEvent.click(screen.getByLabelText("7 d"));
    expect(screen.getByTestId("where").textContent).toBe("/fees?range=7d");
    fireEvent.click(screen.getByLabelText("Custom"));
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-11-01" } });
    fireEvent.change(screen.getByLabelText("To"), { target: { value: "2026-11-10" } });
    fireEvent.click(screen.getByRole("button", { name: "Show" }));
    expect(screen.getByTestId("where").textContent).toBe("/fees?range=custom&from=2026-11-01&to=2026-11-10");
    expect(screen.getByTestId("days").textContent).toBe("2026-11-01..2026-11-10 10");
  });

  it("a reversed pair is refused on the From field and the last valid range stays", () => {
    at("/fees?range=custom&from=2026-11-01&to=2026-11-10");
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-11-20" } });
    fireEvent.click(screen.getByRole("button", { name: "Show" }));
    expect(screen.getByRole("alert").textContent).toBe("From must be on or before To.");
    const from = screen.getByLabelText("From");
    expect(from.getAttribute("aria-invalid")).toBe("true");
    expect(from.getAttribute("aria-describedby")).toBe(screen.getByRole("alert").id);
    expect(screen.getByLabelText("To").getAttribute("aria-invalid")).toBeNull();
    expect(screen.getByTestId("days").textContent).toBe("2026-11-01..2026-11-10 10");
  });

  it("carries the range to the next page that shows one", () => {
    const first = at("/fees?range=custom&from=2026-10-01&to=2026-10-31");
    first.unmount();
    at("/");
    expect(screen.getByTestId("where").textContent).toBe("/?range=custom&from=2026-10-01&to=2026-10-31");
    expect(screen.getByTestId("days").textContent).toBe("2026-10-01..2026-10-31 31");
  });

  it("a page that takes presets only offers no Custom and keeps to the carried preset", () => {
    at("/fees?range=7d").unmount();
    at("/fees?range=custom&from=2026-10-01&to=2026-10-31").unmount();
    at("/dashboard", false);
    expect(screen.queryByLabelText("Custom")).toBeNull();
    expect(screen.getByTestId("days").textContent).toMatch(/ 30$/);
    fireEvent.click(screen.getByLabelText("90 d"));
    expect(screen.getByTestId("days").textContent).toMatch(/ 90$/);
  });
});
