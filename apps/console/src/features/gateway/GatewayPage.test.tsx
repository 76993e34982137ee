import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { fakeApi, profile, validationError } from "../../test-fakes";
import { GatewayPage } from "./GatewayPage";

const route = {
  merchant_id: "mrch_TestMerchant1234",
  slug: "acme",
  upstream_url: "https://api.example.com/v1",
  tier: "standard",
  gateway_url: "http://127.0.0.1:3000/g/acme",
  origin_secret_header: "x-tollgate-origin-secret",
  updated_at: "2026-01-01T00:00:00.000Z",
};

describe("GatewayPage", () => {
  it("no route yet is the empty state; saving shows the origin secret once", async () => {
    const api = fakeApi({
      currentGateway: vi.fn().mockResolvedValueOnce(null).mockResolvedValue(route),
      setGateway: vi.fn().mockResolvedValue({ ...route, origin_secret: "gos_secret" }),
    });
    render(<GatewayPage api={api} merchant={profile()} />);
    expect(await screen.findByTestId("gateway-empty")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Slug"), { target: { value: "acme" } });
    fireEvent.change(screen.getByLabelText("Upstream URL"), {
      target: { value: "https://api.example.com/v1" },
    });
    fireEvent.click(screen.getByTestId("gateway-save"));
    expect(((await screen.findByTestId("gateway-origin-secret")) as HTMLInputElement).value).toBe(
      "gos_secret",
    );
    expect(await screen.findByTestId("gateway-current")).toBeTruthy();
    // gateway_url already ends with the slug: it is not repeated.
    expect(screen.getByTestId("gateway-agent-url").textContent).toBe("http://127.0.0.1:3000/g/acme/…");
    expect(api.setGateway).toHaveBeenCalledWith({
      id: route.merchant_id,
      slug: "acme",
      upstream_url: "https://api.example.com/v1",
      tier: "standard",
    });
  });

  it("shows field errors from the server beside the field", async () => {
    const api = fakeApi({
      currentGateway: vi.fn().mockResolvedValue(null),
      setGateway: vi
        .fn()
        .mockRejectedValue(
          validationError([{ path: "upstream_url", code: "invalid_url", message: "must be an https URL" }]),
        ),
    });
    render(<GatewayPage api={api} merchant={profile()} />);
    await screen.findByTestId("gateway-empty");
    fireEvent.change(screen.getByLabelText("Slug"), { target: { value: "acme" } });
    fireEvent.click(screen.getByTestId("gateway-save"));
    expect((await screen.findByTestId("gateway-upstream-error")).textContent).toBe("must be an https URL");
  });
});
