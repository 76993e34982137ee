import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { SecretPanel } from "./SecretPanel";

describe("SecretPanel", () => {
  it("shows the secret once with a warning, copies it and continues", async () => {
    const copy = vi.fn().mockResolvedValue(true);
    const onContinue = vi.fn();
    render(
      <SecretPanel
        heading="Merchant registered"
        merchantId="mrch_1"
        secret="msec_xyz"
        onContinue={onContinue}
        copy={copy}
      />,
    );
    expect((screen.getByTestId("secret-value") as HTMLInputElement).value).toBe("msec_xyz");
    expect(screen.getByTestId("merchant-id").textContent).toBe("mrch_1");
    expect(screen.getByTestId("secret-warning").textContent).toMatch(/cannot be shown again/);
    expect(screen.getByLabelText("Merchant secret")).toBe(screen.getByTestId("secret-value"));

    fireEvent.click(screen.getByTestId("secret-copy"));
    expect(await screen.findByText("Copied to the clipboard.")).toBeTruthy();
    expect(copy).toHaveBeenCalledWith("msec_xyz");

    fireEvent.click(screen.getByTestId("secret-continue"));
    expect(onContinue).toHaveBeenCalledOnce();
  });

  it("tells the user to copy by hand when the clipboard is blocked", async () => {
    render(
      <SecretPanel
        heading="Secret rotated"
        merchantId="mrch_1"
        secret="msec_xyz"
        onContinue={vi.fn()}
        copy={vi.fn().mockResolvedValue(false)}
      />,
    );
    fireEvent.click(screen.getByTestId("secret-copy"));
    expect(await screen.findByText(/select the secret and copy it by hand/)).toBeTruthy();
  });
});
