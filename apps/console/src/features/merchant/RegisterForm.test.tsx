import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CANONICAL_NETWORKS, fakeApi, profile, VALID_EVM } from "../../test-fakes";
import { RegisterForm } from "./RegisterForm";

function fill(testId: string, value: string) {
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
}

describe("RegisterForm", () => {
  it("shows the shared schema's messages for a short name and a bad EVM checksum without calling the server", async () => {
    const api = fakeApi();
    render(<RegisterForm api={api} onRegistered={vi.fn()} />);
    fill("register-name", "  ab ");
    // VALID_EVM with one letter's case flipped: mixed case, wrong EIP-55 checksum.
    fill("register-pay-to-evm", VALID_EVM.replace("E0F", "e0F"));
    fireEvent.click(screen.getByTestId("register-submit"));

    expect(await screen.findByTestId("register-name-error")).toHaveProperty(
      "textContent",
      "name must be at least 3 characters after trimming",
    );
    expect(screen.getByTestId("register-pay-to-evm-error").textContent).toBe(
      "mixed-case address fails its EIP-55 checksum",
    );
    expect(screen.getByTestId("register-name").getAttribute("aria-invalid")).toBe("true");
    expect(api.register).not.toHaveBeenCalled();
  });

  it("requires at least one payout wallet and checks tier rows", async () => {
    const api = fakeApi();
    render(<RegisterForm api={api} onRegistered={vi.fn()} />);
    fill("register-name", "Acme Search");
    fill("tier-name-0", "Standard");
    fill("tier-price-1", "0.0000001");
    fireEvent.click(screen.getByTestId("register-submit"));

    expect((await screen.findByTestId("register-pay-to-error")).textContent).toMatch(
      /at least one payout family/,
    );
    expect(screen.getByTestId("tier-error-0").textContent).toMatch(/tier names are 1-32 chars/);

    // The schema checks tier names before prices; with the name fixed, the price rule shows.
    fill("tier-name-0", "standard");
    fireEvent.click(screen.getByTestId("register-submit"));
    expect((await screen.findByTestId("tier-error-1")).textContent).toMatch(/at most 6 decimal places/);
    expect(screen.queryByTestId("tier-error-0")).toBeNull();
    expect(api.register).not.toHaveBeenCalled();
  });

  it("offers only the chains of the selected network mode", async () => {
    const api = fakeApi();
    render(<RegisterForm api={api} onRegistered={vi.fn()} />);
    const chain = screen.getByTestId("settlement-chain") as HTMLSelectElement;
    const values = () => [...chain.options].map((option) => option.value);
    // Test mode is the default.
    await waitFor(() => expect(values()).toEqual(["amoy"]));
    fireEvent.click(screen.getByTestId("register-mode-live"));
    expect(values()).toEqual(["polygon", "base"]);
    expect(chain.value).toBe("polygon");
    fireEvent.click(screen.getByTestId("register-mode-test"));
    expect(values()).toEqual(["amoy"]);
    expect(chain.value).toBe("amoy");
    expect(api.networks).toHaveBeenCalled();
  });

  it("takes the network list from the API: a deployment with base-sepolia and a custom network offers them", async () => {
    const api = fakeApi({
      networks: vi
        .fn()
        .mockResolvedValue([
          ...CANONICAL_NETWORKS,
          { name: "base-sepolia", chainId: 84532, mode: "test" },
          { name: "devnet", chainId: 31337, mode: "test" },
        ]),
    });
    render(<RegisterForm api={api} onRegistered={vi.fn()} />);
    const chain = screen.getByTestId("settlement-chain") as HTMLSelectElement;
    await waitFor(() => expect(chain.options).toHaveLength(3));
    expect([...chain.options].map((option) => [option.value, option.textContent])).toEqual([
      ["amoy", "Polygon Amoy (testnet) · chain 80002"],
      ["base-sepolia", "Base Sepolia (testnet) · chain 84532"],
      ["devnet", "devnet · chain 31337"],
    ]);
    expect(chain.value).toBe("amoy");
  });

  it("defaults to test mode, the permanent choice explained beside it", () => {
    render(<RegisterForm api={fakeApi()} onRegistered={vi.fn()} />);
    expect((screen.getByTestId("register-mode-test") as HTMLInputElement).checked).toBe(true);
    expect((screen.getByTestId("register-mode-live") as HTMLInputElement).checked).toBe(false);
    expect(screen.getByText(/cannot be changed later/)).toBeTruthy();
  });

  it("sends the form input and hands the result over", async () => {
    const merchant = profile();
    const result = { merchant_id: merchant.merchant_id, secret: "msec_abc", merchant };
    const api = fakeApi({ register: vi.fn().mockResolvedValue(result) });
    const onRegistered = vi.fn();
    render(<RegisterForm api={api} onRegistered={onRegistered} />);
    fill("register-name", "Acme Search");
    fill("register-pay-to-evm", ` ${VALID_EVM.toLowerCase()} `);
    fill("register-pay-to-near", "acme.near");
    fireEvent.click(screen.getByTestId("tier-add"));
    fill("tier-name-2", "bulk");
    fill("tier-price-2", "0.0005");
    fireEvent.click(screen.getByTestId("register-submit"));

    await waitFor(() => expect(onRegistered).toHaveBeenCalledWith(result));
    expect(api.register).toHaveBeenCalledWith({
      name: "Acme Search",
      pay_to: { evm: VALID_EVM.toLowerCase(), near: "acme.near" },
      network_mode: "test",
      settlement_version: "1.2",
      settlement_chain: "amoy",
      tiers: { standard: "0.001", premium: "0.01", bulk: "0.0005" },
    });
  });

  it("shows server field errors by path, and unclaimed ones in the banner", async () => {
    const { TRPCClientError } = await import("@trpc/client");
    const error = new TRPCClientError("request breaks a merchant rule");
    // The client copies `data` from the response's error shape; set it the same way.
    Object.assign(error, {
      data: {
        type: "/docs/errors#validation_failed",
        title: "Validation failed",
        status: 400,
        detail: "request breaks a merchant rule",
        code: "validation_failed",
        request_id: "req_abc123456",
        errors: [
          {
            path: "webhook_url",
            code: "webhook_url_not_https",
            message: "http is allowed only in development mode",
          },
          { path: "", code: "invalid_value", message: "something about the whole body" },
        ],
        httpStatus: 400,
      },
    });
    const api = fakeApi({ register: vi.fn().mockRejectedValue(error) });
    render(<RegisterForm api={api} onRegistered={vi.fn()} />);
    fill("register-name", "Acme Search");
    fill("register-pay-to-evm", VALID_EVM);
    fill("register-webhook", "http://127.0.0.1:9/hook");
    fireEvent.click(screen.getByTestId("register-submit"));

    expect((await screen.findByTestId("register-webhook-error")).textContent).toBe(
      "http is allowed only in development mode",
    );
    const banner = screen.getByTestId("form-problem");
    expect(banner.textContent).toContain("something about the whole body");
    expect(banner.textContent).toContain("req_abc123456");
    expect(banner.textContent).not.toContain("development mode");
  });
});
