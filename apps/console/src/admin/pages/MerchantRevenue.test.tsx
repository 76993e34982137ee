import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { revenueSeries } from "../../charts/RevenueChart";
import { MerchantRevenue } from "./MerchantRevenue";

const row = (day: string, merchant_amount: string, asset = "USDC") => ({
  day,
  network: "amoy",
  token: "0x41e94eb019c0762f9bfcf9fb1e58725bfb0e7582",
  asset,
  settlements: 1,
  merchant_amount,
  total_amount: merchant_amount,
});

describe("MerchantRevenue (operator merchant detail, decision 0078)", () => {
  it("says where the figures come from and lists them exactly, base units on hover", () => {
    render(
      <MerchantRevenue
        revenue={{ from: "2026-05-01", to: "2026-05-03", rows: [row("2026-05-02", "123456789012")] }}
      />,
    );
    expect(screen.getByTestId("merchant-revenue-source").textContent).toContain("not from receipts issued");
    const cell = screen.getByTitle("123456789012 base units");
    expect(cell.textContent).toBe("123456.789012 USDC");
    expect(screen.getByTestId("merchant-revenue-chart")).toBeTruthy();
  });

  it("an empty window says so and draws no chart", () => {
    render(<MerchantRevenue revenue={{ from: "2026-05-01", to: "2026-05-03", rows: [] }} />);
    expect(screen.getByTestId("merchant-revenue-empty").textContent).toBe(
      "No confirmed payments from 2026-05-01 to 2026-05-03.",
    );
    expect(screen.queryByTestId("merchant-revenue-chart")).toBeNull();
  });

  it("the shared series has one point per day of the window, zero where nothing settled", () => {
    const series = revenueSeries(
      [row("2026-05-02", "2500000"), row("2026-05-02", "500000")],
      "2026-05-01",
      3,
    );
    expect(series.keys).toEqual(["USDC on amoy"]);
    expect(series.values).toEqual([[0, 3, 0]]);
    expect(series.x).toEqual([1_777_593_600, 1_777_680_000, 1_777_766_400]);
  });
});
