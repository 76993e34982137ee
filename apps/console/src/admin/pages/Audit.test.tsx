import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { VerificationBanner } from "./Audit";

const head = "ab".repeat(32);
const anchor = "cd".repeat(32);

describe("VerificationBanner", () => {
  it("says the chain was verified from the genesis when nothing was pruned", () => {
    render(<VerificationBanner verification={{ ok: true, checked: 3, head, checkpoint: null }} />);
    const text = screen.getByTestId("audit-verify").textContent;
    expect(text).toMatch(/^Chain verified: 3 events, head/);
    expect(text).not.toContain("checkpoint");
  });

  it("names the checkpoint's anchor, the rows pruned and when, after a prune", () => {
    const checkpoint = {
      id: "ackp_1",
      at: "2026-12-01T12:00:00.000Z",
      through_seq: "40",
      anchor_hash: anchor,
      pruned_count: 40,
      pruned_total: 40,
    };
    render(<VerificationBanner verification={{ ok: true, checked: 3, head, checkpoint }} />);
    expect(screen.getByTestId("audit-verify").textContent).toContain(
      `Verified from checkpoint cdcdcdcdcd…cdcdcd${anchor} (40 rows pruned on 2026-12-01 12:00:00 UTC).`,
    );
  });

  it("reports a removed checkpoint as a broken chain", () => {
    render(
      <VerificationBanner
        verification={{
          ok: false,
          checked: 0,
          broken: { seq: "41", id: "aud_x", reason: "prev_hash_mismatch" },
        }}
      />,
    );
    expect(screen.getByRole("alert").textContent).toBe(
      "Chain broken at 41 (aud_x): prev_hash_mismatch, after 0 good events.",
    );
  });
});
