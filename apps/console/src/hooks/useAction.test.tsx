import { act, renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useAction } from "./useAction";

describe("useAction", () => {
  it("shows the string a call resolves to as the notice, and a failure as the problem", async () => {
    const { result } = renderHook(() => useAction());
    await act(async () => {
      expect(await result.current.run(async () => "Saved.")).toBe(true);
    });
    expect(result.current.notice).toBe("Saved.");
    await act(async () => {
      expect(await result.current.run(() => Promise.reject(new Error("no route")))).toBe(false);
    });
    expect(result.current.problem).toBeDefined();
    expect(result.current.notice).toBeUndefined();
    expect(result.current.busy).toBe(false);
  });

  it("keeps the last notice through a failure when asked to", async () => {
    const { result } = renderHook(() => useAction({ keepNotice: true }));
    await act(async () => void (await result.current.run(async () => "Approved.")));
    await act(async () => void (await result.current.run(() => Promise.reject(new Error("stale")))));
    expect(result.current.notice).toBe("Approved.");
    expect(result.current.problem).toBeDefined();
  });
});
