import { act, renderHook, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useLoad } from "./useLoad";

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe("useLoad", () => {
  it("keeps the newest answer when an older one arrives later", async () => {
    const first = deferred<string>();
    const second = deferred<string>();
    const calls = [first, second];
    const { result, rerender } = renderHook(
      ({ key }) => useLoad(() => (calls.shift() ?? second).promise, key),
      {
        initialProps: { key: "a" },
      },
    );
    rerender({ key: "b" });
    await act(async () => second.resolve("newer"));
    await act(async () => first.resolve("older"));
    expect(result.current.status).toBe("ready");
    expect(result.current.data).toBe("newer");
  });

  it("keeps the data while a reload runs, and the failure while a retry runs", async () => {
    let next = deferred<string>();
    const { result } = renderHook(() => useLoad(() => next.promise, "k"));
    await act(async () => next.resolve("one"));
    next = deferred<string>();
    act(() => void result.current.reload());
    expect(result.current).toMatchObject({ status: "loading", data: "one" });
    await act(async () => next.reject(new Error("down")));
    expect(result.current.status).toBe("error");
    expect(result.current.data).toBeUndefined();
    next = deferred<string>();
    act(() => void result.current.reload());
    expect(result.current.status).toBe("loading");
    expect(result.current.error).toBeInstanceOf(Error);
    await act(async () => next.resolve("two"));
    await waitFor(() => expect(result.current).toMatchObject({ status: "ready", data: "two" }));
    expect(result.current.error).toBeUndefined();
  });
});
