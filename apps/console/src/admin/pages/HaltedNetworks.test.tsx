import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { AdminClient, AdminMe } from "../api";
import { AdminContext } from "../context";
import { HaltedNetworks } from "./HaltedNetworks";

const me = {
  admin: { id: "adm_1", email: "op@example.com", role: "operator" },
  session_expires_at: "",
  can_act: true,
} as AdminMe;
const halt = {
  network: "amoy",
  chain_id: 80002,
  reason: "reorg deeper than 64",
  block_number: "1200",
  halted_at: "2026-11-23T10:00:00Z",
};

function renderWith(client: unknown, canAct: boolean, halted = [halt]) {
  const onChanged = vi.fn();
  const view = render(
    <AdminContext.Provider value={{ client: client as AdminClient, me, canAct }}>
      <HaltedNetworks halted={halted} onChanged={onChanged} />
    </AdminContext.Provider>,
  );
  return { onChanged, view };
}

describe("HaltedNetworks", () => {
  it("renders nothing when no network is halted", () => {
    const { view } = renderWith({}, true, []);
    expect(view.container.innerHTML).toBe("");
  });

  it("resumes a halted network with the reason after a confirmation", async () => {
    const resume = vi.fn().mockResolvedValue({ resumed: halt, halted: [] });
    const { onChanged } = renderWith({ admin: { resumeNetwork: { mutate: resume } } }, true);
    expect(screen.getByTestId("halted-networks").textContent).toContain("reorg deeper than 64");
    fireEvent.click(screen.getByRole("button", { name: "Resume amoy…" }));
    fireEvent.change(screen.getByLabelText(/What was checked/), { target: { value: "node resynced" } });
    fireEvent.click(screen.getByRole("button", { name: "Resume" }));
    await vi.waitFor(() => expect(onChanged).toHaveBeenCalledOnce());
    expect(resume).toHaveBeenCalledWith({ network: "amoy", reason: "node resynced" });
  });

  it("a long reason sits in a closed disclosure, whole in its title and its text (decision 0084)", () => {
    const reason = `ReorgTooDeep${"W".repeat(488)}`;
    renderWith({}, true, [{ ...halt, reason }]);
    const details = screen.getByTestId("halted-reason-amoy") as HTMLDetailsElement;
    expect(details.tagName).toBe("DETAILS");
    expect(details.open).toBe(false);
    const summary = details.querySelector("summary");
    expect(summary?.getAttribute("title")).toBe(reason);
    expect(summary?.textContent).toBe(reason);
    fireEvent.click(summary as HTMLElement);
    expect(details.open).toBe(true);
  });

  it("a viewer cannot open the resume dialog", () => {
    renderWith({}, false);
    expect((screen.getByRole("button", { name: "Resume amoy…" }) as HTMLButtonElement).disabled).toBe(true);
  });
});
