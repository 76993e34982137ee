import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { TRPCClientError } from "@trpc/client";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { App } from "./App";
import type { MerchantApi } from "./lib/trpc";
import { fakeApi, profile } from "./test-fakes";

/** The app as main.tsx mounts it, on a path under the console's base. */
function renderApp(api: MerchantApi, path = "/") {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <App api={api} />
    </MemoryRouter>,
  );
}

describe("App", () => {
  it("signs in with a secret kept in sessionStorage only, and signing out clears it", async () => {
    const merchant = profile();
    const api = fakeApi({ me: vi.fn().mockResolvedValue(merchant) });
    renderApp(api);
    fireEvent.click(screen.getByTestId("nav-signin"));
    fireEvent.change(screen.getByTestId("signin-secret"), { target: { value: " msec_secret1 " } });
    fireEvent.click(screen.getByTestId("signin-submit"));

    // Signed in, the dashboard is the landing page; the profile is one section away.
    expect(await screen.findByTestId("dashboard")).toBeTruthy();
    fireEvent.click(screen.getByTestId("nav-profile"));
    expect((await screen.findByTestId("profile-view-name")).textContent).toBe("Acme Search");
    expect(api.me).toHaveBeenCalledWith("msec_secret1");
    expect(Object.values(window.sessionStorage)).toContain("msec_secret1");
    expect(window.localStorage.length).toBe(0);
    expect(screen.getByTestId("profile-view-tier-standard").textContent).toContain("0.001");

    fireEvent.click(screen.getByTestId("nav-signout"));
    expect(window.sessionStorage.length).toBe(0);
    expect(screen.getByTestId("signin-form")).toBeTruthy();
  });

  it("refuses a value that is not a merchant secret without calling the server", () => {
    const api = fakeApi();
    renderApp(api);
    fireEvent.click(screen.getByTestId("nav-signin"));
    fireEvent.change(screen.getByTestId("signin-secret"), { target: { value: "mrch_notasecret" } });
    fireEvent.click(screen.getByTestId("signin-submit"));
    expect(screen.getByTestId("signin-secret-error").textContent).toBe("a merchant secret starts with msec_");
    expect(api.me).not.toHaveBeenCalled();
  });

  it("registers, shows the secret once, and continues to Get started signed in", async () => {
    const merchant = profile();
    const api = fakeApi({
      currentGateway: vi.fn().mockResolvedValue(null),
      webhookDeliveries: vi
        .fn()
        .mockResolvedValue({ merchant_id: merchant.merchant_id, endpoint: null, deliveries: [] }),
      dashboard: vi.fn().mockRejectedValue(new Error("not needed")),
      listListings: vi.fn().mockResolvedValue([]),
      register: vi
        .fn()
        .mockResolvedValue({ merchant_id: merchant.merchant_id, secret: "msec_new", merchant }),
      me: vi.fn().mockResolvedValue(merchant),
    });
    renderApp(api);
    // A visitor lands on Sign in, which links to Register.
    expect(screen.getByTestId("signin-form")).toBeTruthy();
    fireEvent.click(screen.getByTestId("landing-register"));
    fireEvent.change(screen.getByTestId("register-name"), { target: { value: "Acme Search" } });
    fireEvent.change(screen.getByTestId("register-pay-to-evm"), { target: { value: merchant.pay_to.evm } });
    fireEvent.click(screen.getByTestId("register-submit"));
    expect(((await screen.findByTestId("secret-value")) as HTMLInputElement).value).toBe("msec_new");

    fireEvent.click(screen.getByTestId("secret-continue"));
    // "Continue to Get started" opens the checklist, with the next step.
    expect((await screen.findByTestId("start-notice")).textContent).toContain("Work through the steps");
    expect(await screen.findByTestId("start-progress")).toBeTruthy();
    expect(window.sessionStorage.getItem("tollgate.console.merchantSecret")).toBe("msec_new");
    expect(screen.queryByTestId("secret-value")).toBeNull();
  });

  it("rotates the secret: stores the new one at once and shows it once", async () => {
    window.sessionStorage.setItem("tollgate.console.merchantSecret", "msec_old");
    const merchant = profile();
    const api = fakeApi({
      me: vi.fn().mockResolvedValue(merchant),
      rotateSecret: vi
        .fn()
        .mockResolvedValue({ merchant_id: merchant.merchant_id, secret: "msec_rotated", rotated_at: "x" }),
    });
    renderApp(api);
    // Signed in by the stored secret: the dashboard first, then the profile is one section away.
    expect(await screen.findByTestId("dashboard")).toBeTruthy();
    fireEvent.click(screen.getByTestId("nav-profile"));
    fireEvent.click(await screen.findByTestId("rotate-start"));
    fireEvent.click(screen.getByTestId("rotate-confirm"));
    expect(((await screen.findByTestId("secret-value")) as HTMLInputElement).value).toBe("msec_rotated");
    expect(api.rotateSecret).toHaveBeenCalledWith(merchant.merchant_id);
    expect(window.sessionStorage.getItem("tollgate.console.merchantSecret")).toBe("msec_rotated");

    fireEvent.click(screen.getByTestId("secret-continue"));
    expect((await screen.findByTestId("profile-notice")).textContent).toBe("Secret rotated.");
  });

  it("drops a stored secret the server no longer accepts", async () => {
    window.sessionStorage.setItem("tollgate.console.merchantSecret", "msec_stale");
    const error = Object.assign(new TRPCClientError("invalid"), {
      data: {
        type: "/docs/errors#invalid_merchant_secret",
        title: "Invalid merchant secret",
        status: 401,
        detail: "the merchant secret is not valid",
        code: "invalid_merchant_secret",
        httpStatus: 401,
      },
    });
    renderApp(fakeApi({ me: vi.fn().mockRejectedValue(error) }));
    expect((await screen.findByTestId("signin-notice")).textContent).toMatch(/no longer valid/);
    await waitFor(() => expect(window.sessionStorage.length).toBe(0));
  });
});
