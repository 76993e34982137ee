/** The "Run a test paid call" button in Get started's step 3 (decision 0075): offer, progress, result, problems. */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { TRPCClientError } from "@trpc/client";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import type { MerchantApi, MerchantDashboard, TestPaidCallResult } from "../../lib/trpc";
import { fakeApi, profile } from "../../test-fakes";
import { GetStarted } from "./GetStarted";

const ID = "mrch_TestMerchant1234";
const dashboard = (issued: number) => ({ receipts: { issued } }) as unknown as MerchantDashboard;
const OFFER = { available: true as const, network: "amoy", tier: "standard", unit_price: "0.001" };
const RESULT: TestPaidCallResult = {
  receipt_id: "rcpt_TestReceipt1",
  tx_hash: `0x${"ab".repeat(32)}`,
  quote_id: "qt_1",
  network: "amoy",
  tier: "standard",
  amount: "0.1",
  asset: "USDC",
  amount_atomic: "100000",
  payer: "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
};

function startApi(overrides: Partial<MerchantApi>) {
  return fakeApi({
    currentGateway: vi.fn().mockResolvedValue(null),
    webhookDeliveries: vi.fn().mockResolvedValue({ merchant_id: ID, endpoint: null, deliveries: [] }),
    dashboard: vi.fn().mockResolvedValue(dashboard(0)),
    listListings: vi.fn().mockResolvedValue([]),
    ...overrides,
  });
}

function renderStart(api: MerchantApi) {
  return render(
    <MemoryRouter>
      <GetStarted
        api={api}
        merchant={profile({ network_mode: "test", settlement_chain: "amoy" })}
        apiBaseUrl="http://127.0.0.1:3000"
      />
    </MemoryRouter>,
  );
}

const paidCallDone = () => screen.getByTestId("start-step-paid-call").getAttribute("data-done");

describe("Run a test paid call", () => {
  it("offered: Paying… while it runs, then the receipt and transaction with copy buttons, and step 3 ticks", async () => {
    let answer: (result: TestPaidCallResult) => void = () => undefined;
    const api = startApi({
      testPaidCallAvailability: vi.fn().mockResolvedValue(OFFER),
      runTestPaidCall: vi.fn(() => new Promise<TestPaidCallResult>((resolve) => (answer = resolve))),
      dashboard: vi.fn().mockResolvedValueOnce(dashboard(0)).mockResolvedValue(dashboard(1)),
    });
    renderStart(api);
    const button = await screen.findByTestId("start-test-call-run");
    expect(button.textContent).toBe("Run a test paid call");
    expect(screen.getByTestId("start-test-call").textContent).toContain("standard");
    // The commands stay, folded away, as the way to run it by hand.
    expect(screen.getByTestId("start-paid-call-manual").hasAttribute("open")).toBe(false);
    expect(paidCallDone()).toBe("false");

    fireEvent.click(button);
    expect(button.textContent).toBe("Paying…");
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("start-test-call-progress").textContent).toContain("amoy");
    expect(api.runTestPaidCall).toHaveBeenCalledWith(ID);
    await act(async () => answer(RESULT));

    const result = await screen.findByTestId("start-test-call-result");
    expect(screen.getByTestId("start-test-call-receipt").textContent).toBe(RESULT.receipt_id);
    expect(screen.getByTestId("start-test-call-tx").textContent).toBe(RESULT.tx_hash);
    expect(screen.getByTestId("start-test-call-amount").textContent).toBe("0.1 USDC on amoy");
    const copies = within(result).getAllByTestId("copy-button");
    expect(copies.map((copy) => copy.getAttribute("aria-label"))).toEqual([
      `Copy receipt id ${RESULT.receipt_id}`,
      `Copy transaction hash ${RESULT.tx_hash}`,
    ]);
    expect(button.textContent).toBe("Run a test paid call");
    // Step 3 is ticked from the API's count, read again after the call.
    await vi.waitFor(() => expect(paidCallDone()).toBe("true"));
    expect(api.dashboard).toHaveBeenCalledTimes(2);
  });

  it("a refusal is shown in the problem banner with its code, and no result", async () => {
    const refused = Object.assign(new TRPCClientError("a test paid call for this merchant is running"), {
      data: {
        type: "/docs/errors#test_paid_call_in_progress",
        title: "A test paid call for this merchant is already running",
        status: 409,
        detail: "a test paid call for this merchant is running",
        code: "test_paid_call_in_progress",
        request_id: "req_test1",
        httpStatus: 409,
      },
    });
    const api = startApi({
      testPaidCallAvailability: vi.fn().mockResolvedValue(OFFER),
      runTestPaidCall: vi.fn().mockRejectedValue(refused),
    });
    renderStart(api);
    fireEvent.click(await screen.findByTestId("start-test-call-run"));
    const banner = await screen.findByTestId("start-test-call-problem");
    expect(screen.getByTestId("start-test-call-problem-code").textContent).toBe("test_paid_call_in_progress");
    expect(banner.getAttribute("role")).toBe("alert");
    expect(screen.queryByTestId("start-test-call-result")).toBeNull();
    expect(screen.getByTestId("start-test-call-run").textContent).toBe("Run a test paid call");
    expect(paidCallDone()).toBe("false");
  });

  it("not offered: no button, the API's reason, and the commands open as the fallback", async () => {
    const api = startApi({
      testPaidCallAvailability: vi.fn().mockResolvedValue({
        available: false,
        code: "test_paid_call_unavailable",
        detail: "this deployment has no test paid call key",
      }),
    });
    renderStart(api);
    expect((await screen.findByTestId("start-test-call-unavailable")).textContent).toContain(
      "this deployment has no test paid call key",
    );
    expect(screen.queryByTestId("start-test-call-run")).toBeNull();
    expect(screen.getByTestId("start-paid-call-manual").hasAttribute("open")).toBe(true);
    expect(screen.getByTestId("start-paid-call-commands").textContent).toContain(
      `TOLLGATE_MERCHANT_ID='${ID}'`,
    );
    expect(api.runTestPaidCall).not.toHaveBeenCalled();
  });

  it("availability that could not be read: no button, said so, commands open", async () => {
    const api = startApi({ testPaidCallAvailability: vi.fn().mockRejectedValue(new Error("down")) });
    renderStart(api);
    expect((await screen.findByTestId("start-test-call-unavailable")).textContent).toContain(
      "Could not check",
    );
    expect(screen.queryByTestId("start-test-call-run")).toBeNull();
    expect(screen.getByTestId("start-paid-call-manual").hasAttribute("open")).toBe(true);
  });
});
