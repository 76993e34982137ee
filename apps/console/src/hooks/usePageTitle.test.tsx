import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { merchantPageTitle } from "../App";
import { operatorPageTitle } from "../admin/sections";
import { usePageTitle } from "./usePageTitle";

function Page({ title, area }: { title: string | undefined; area: "operator" | "merchant" }) {
  usePageTitle(title, area);
  return null;
}

describe("page titles", () => {
  it("names the tab after the page and gives the previous title back when it goes", () => {
    document.title = "before";
    const page = render(<Page title="Transactions" area="operator" />);
    expect(document.title).toBe("Transactions · Tollgate operator");
    page.rerender(<Page title="Webhooks" area="merchant" />);
    expect(document.title).toBe("Webhooks · Tollgate merchant");
    page.unmount();
    expect(document.title).toBe("before");
  });

  it("every operator section and detail page has its own title", () => {
    expect(operatorPageTitle("/")).toBe("Overview");
    expect(operatorPageTitle("/transactions")).toBe("Transactions");
    expect(operatorPageTitle("/transactions/42")).toBe("Settlement 42");
    expect(operatorPageTitle("/merchants/mrch_abc")).toBe("Merchant mrch_abc");
    expect(operatorPageTitle("/failed")).toBe("Failed payments");
    expect(operatorPageTitle("/search")).toBe("Search");
    expect(operatorPageTitle("/nope")).toBe("Not found");
  });

  it("the merchant console titles its sections, sign-in and registration", () => {
    const merchant = { kind: "profile", merchant: {} } as Parameters<typeof merchantPageTitle>[0];
    expect(merchantPageTitle(merchant, "webhooks", false)).toBe("Webhooks");
    expect(merchantPageTitle(merchant, "profile", false)).toBe("Profile and payout");
    expect(merchantPageTitle({ kind: "signed-out" }, undefined, false)).toBe("Sign in");
    expect(merchantPageTitle({ kind: "signed-out" }, undefined, true)).toBe("Register");
  });
});
