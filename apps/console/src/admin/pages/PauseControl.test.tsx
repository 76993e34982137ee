import { fireEvent, render, screen } from "@testing-library/react";
import { TRPCClientError } from "@trpc/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AdminClient, AdminMe } from "../api";
import { AdminContext } from "../context";
import { formatUnits } from "../ui";
import { PauseControl } from "./PauseControl";

const me = {
  admin: { id: "adm_1", email: "op@example.com", role: "operator" },
  session_expires_at: "",
  can_act: true,
} as AdminMe;

function renderWith(
  client: unknown,
  canAct: boolean,
  pause = {
    paused: false,
    scopes: [] as { scope: string; reason: string; since: string; by: string | null }[],
  },
) {
  const onChanged = vi.fn();
  render(
    <AdminContext.Provider value={{ client: client as AdminClient, me, canAct }}>
      <PauseControl pause={pause} onChanged={onChanged} />
    </AdminContext.Provider>,
  );
  return onChanged;
}

// The scopes are the API's networks (decision 0057): GET /api/payment-capabilities answers this deployment's list.
const capabilities = {
  chains: [
    { network: "polygon", family: "evm", chain_id: 137, mode: "live" },
    { network: "amoy", family: "evm", chain_id: 80002, mode: "test" },
    { network: "base-sepolia", family: "evm", chain_id: 84532, mode: "test" },
    { network: "solana", family: "solana", chain_id: null, mode: "live" },
  ],
};
const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  fetchMock.mockImplementation(() => Promise.resolve(Response.json(capabilities)));
  vi.stubGlobal("fetch", fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe("PauseControl", () => {
  it("offers all and every network the API lists as scopes", async () => {
    renderWith({}, true);
    await screen.findByRole("option", { name: "base-sepolia" });
    const options = [...(screen.getByTestId("pause-scope") as HTMLSelectElement).options].map((o) => o.value);
    expect(options).toEqual(["all", "polygon", "amoy", "base-sepolia"]);
    expect(fetchMock).toHaveBeenCalledWith(expect.stringMatching(/\/api\/payment-capabilities$/));
  });

  it("pauses a scope after a confirmation with a reason, and says quotes are refused now", async () => {
    const pause = vi.fn().mockResolvedValue({ pause: {}, paused: [{ scope: "amoy" }] });
    const onChanged = renderWith({ admin: { pause: { mutate: pause } } }, true);
    await screen.findByRole("option", { name: "amoy" });
    fireEvent.change(screen.getByTestId("pause-scope"), { target: { value: "amoy" } });
    fireEvent.click(screen.getByTestId("pause-open"));
    expect(screen.getByRole("dialog").textContent).toContain("amoy");
    fireEvent.change(screen.getByTestId("pause-reason"), { target: { value: "relayer drained" } });
    fireEvent.click(screen.getByTestId("pause-confirm"));
    expect((await screen.findByTestId("pause-notice")).textContent).toContain(
      "refused now with 503 service_paused",
    );
    expect(pause).toHaveBeenCalledWith({ scope: "amoy", reason: "relayer drained" });
    expect(onChanged).toHaveBeenCalledOnce();
  });

  it("keeps the dialog open with the API's field error", async () => {
    const problem = Object.assign(new TRPCClientError("bad"), {
      data: {
        code: "validation_failed",
        detail: "bad",
        status: 400,
        title: "x",
        type: "",
        errors: [{ path: "reason", code: "too_short", message: "at least 3 characters" }],
      },
    });
    renderWith({ admin: { pause: { mutate: vi.fn().mockRejectedValue(problem) } } }, true);
    fireEvent.click(screen.getByTestId("pause-open"));
    fireEvent.change(screen.getByTestId("pause-reason"), { target: { value: "ab" } });
    fireEvent.click(screen.getByTestId("pause-confirm"));
    expect(await screen.findByText("at least 3 characters")).toBeTruthy();
    expect(screen.getByRole("dialog")).toBeTruthy();
  });

  it("a viewer sees the pause state but every control is disabled", () => {
    renderWith({}, false, {
      paused: true,
      scopes: [{ scope: "base", reason: "incident", since: "2026-11-23T10:00:00Z", by: "adm_2" }],
    });
    expect(screen.getByTestId("paused-base").textContent).toContain("incident");
    expect((screen.getByTestId("pause-open") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("unpause-base") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("pause-scope") as HTMLSelectElement).disabled).toBe(true);
  });
});

describe("formatUnits", () => {
  it("formats base units exactly by the asset's decimals", () => {
    expect(formatUnits("1000000000000000000", "POL")).toBe("1");
    expect(formatUnits("10000000000000000", null)).toBe("0.01");
    expect(formatUnits("1234567", "USDC")).toBe("1.234567");
    expect(formatUnits("not a number", "USDC")).toBe("not a number");
  });
});
