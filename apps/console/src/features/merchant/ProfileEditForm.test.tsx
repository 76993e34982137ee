import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it, vi } from "vitest";
import { fakeApi, profile, validationProblem } from "../../test-fakes";
import { ProfileEditForm } from "./ProfileEditForm";

function fill(testId: string, value: string) {
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
}

describe("ProfileEditForm", () => {
  it("sends only what changed: tier patch with removals, webhook cleared, chain", async () => {
    const merchant = profile({ webhook_url: "https://hooks.example.com/tollgate" });
    const saved = profile({ name: "Acme Two" });
    const api = fakeApi({ update: vi.fn().mockResolvedValue(saved) });
    const onSaved = vi.fn();
    render(<ProfileEditForm api={api} merchant={merchant} onSaved={onSaved} />);
    fill("profile-name", "Acme Two");
    fill("tier-price-0", "0.002");
    fireEvent.click(screen.getByTestId("tier-remove-1"));
    fireEvent.click(screen.getByTestId("tier-add"));
    fill("tier-name-1", "bulk");
    fill("tier-price-1", "0.0001");
    fill("profile-webhook", "");
    // The chains come from the API (decision 0057): base is offered once the list has loaded.
    await screen.findByRole("option", { name: "Base · chain 8453" });
    fireEvent.change(screen.getByTestId("settlement-chain"), { target: { value: "base" } });
    fireEvent.click(screen.getByTestId("profile-save"));

    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(saved));
    expect(api.update).toHaveBeenCalledWith({
      id: merchant.merchant_id,
      name: "Acme Two",
      tiers: { standard: "0.002", bulk: "0.0001", premium: null },
      webhook_url: null,
      settlement_chain: "base",
    });
  });

  it("does not call the server when nothing changed", async () => {
    const api = fakeApi();
    const onSaved = vi.fn();
    render(<ProfileEditForm api={api} merchant={profile()} onSaved={onSaved} />);
    fireEvent.click(screen.getByTestId("profile-save"));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(undefined));
    expect(api.update).not.toHaveBeenCalled();
  });

  it("refuses removing every tier and a non-https webhook client-side", async () => {
    const api = fakeApi();
    render(<ProfileEditForm api={api} merchant={profile()} onSaved={vi.fn()} />);
    fireEvent.click(screen.getByTestId("tier-remove-1"));
    fireEvent.click(screen.getByTestId("tier-remove-0"));
    fill("profile-webhook", "ftp://example.com/hook");
    fireEvent.click(screen.getByTestId("profile-save"));
    expect((await screen.findByTestId("tiers-error")).textContent).toBe("at least one tier is required");
    expect(screen.getByTestId("profile-webhook-error").textContent).toBe("must use https");
    expect(api.update).not.toHaveBeenCalled();
  });

  it("shows field errors from a server problem object inline", async () => {
    const error = Object.assign(new TRPCClientError("bad"), {
      data: validationProblem([
        {
          path: "settlement_chain",
          code: "settlement_chain_mode_mismatch",
          message: "amoy is not a live network",
        },
        { path: "tiers.standard", code: "invalid_usd_amount", message: "server says no" },
      ]),
    });
    const api = fakeApi({ update: vi.fn().mockRejectedValue(error) });
    render(<ProfileEditForm api={api} merchant={profile()} onSaved={vi.fn()} />);
    fill("tier-price-0", "0.003");
    fireEvent.click(screen.getByTestId("profile-save"));
    expect((await screen.findByTestId("settlement-chain-error")).textContent).toBe(
      "amoy is not a live network",
    );
    expect(screen.getByTestId("tier-error-0").textContent).toBe("server says no");
    expect(screen.getByTestId("profile-problem").textContent).toContain("Some fields need attention.");
  });
});
