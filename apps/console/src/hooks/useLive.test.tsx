import { act, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveStatus } from "../ui/LiveStatus";
import { useLoad } from "./useLoad";

function setVisibility(state: "visible" | "hidden") {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
  document.dispatchEvent(new Event("visibilitychange"));
}

/** A page with one live read: its figure, its loading line and its freshness line. */
function Page({ load }: { load: () => Promise<{ n: number }> }) {
  const data = useLoad(load, "k");
  return (
    <>
      <p data-testid="figure">{data.data?.n ?? "none"}</p>
      {data.status === "loading" ? <p data-testid="spinner">loading</p> : null}
      <LiveStatus load={data} intervalMs={1000} />
    </>
  );
}

describe("live updates (decision 0073)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    setVisibility("visible");
  });
  afterEach(() => {
    vi.useRealTimers();
    Reflect.deleteProperty(document, "visibilityState");
  });

  it("reads again on the interval without a loading state, and says how long ago it last did", async () => {
    let n = 0;
    const load = vi.fn(async () => ({ n: ++n }));
    render(<Page load={load} />);
    await act(async () => undefined);
    expect(screen.getByTestId("figure").textContent).toBe("1");
    expect(screen.getByTestId("live-status").textContent).toBe("Updated 0 s ago");
    await act(async () => vi.advanceTimersByTime(999));
    expect(screen.getByTestId("live-status").textContent).toBe("Updated 0 s ago");
    expect(load).toHaveBeenCalledTimes(1);
    await act(async () => vi.advanceTimersByTime(1));
    expect(load).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId("figure").textContent).toBe("2");
    expect(screen.queryByTestId("spinner")).toBeNull();
  });

  it("pauses while the tab is hidden and reads at once when it is shown again", async () => {
    const load = vi.fn(async () => ({ n: 7 }));
    render(<Page load={load} />);
    await act(async () => undefined);
    await act(async () => setVisibility("hidden"));
    expect(screen.getByTestId("live-status").textContent).toContain("paused while this tab is hidden");
    await act(async () => vi.advanceTimersByTime(10_000));
    expect(load).toHaveBeenCalledTimes(1);
    await act(async () => setVisibility("visible"));
    expect(load).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId("live-status").textContent).toBe("Updated 0 s ago");
  });

  it("a failed update keeps the figures on screen and says so", async () => {
    let calls = 0;
    const load = vi.fn(async () => {
      calls += 1;
      if (calls > 1) throw new Error("offline");
      return { n: 3 };
    });
    render(<Page load={load} />);
    await act(async () => undefined);
    await act(async () => vi.advanceTimersByTime(5_000));
    expect(screen.getByTestId("figure").textContent).toBe("3");
    expect(screen.getByTestId("live-status").textContent).toContain("the last update failed");
    expect(screen.getByTestId("live-status").textContent).toMatch(/^Updated 5 s ago/);
  });
});
