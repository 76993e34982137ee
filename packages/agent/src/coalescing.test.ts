// Purchase coalescing with a fake purchase: no chains, no HTTP.
import { describe, expect, it } from "vitest";
import { Coalescer } from "./coalescing";

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("Coalescer", () => {
  it("10 concurrent callers of one key share one purchase", async () => {
    const coalescer = new Coalescer<string>();
    const purchase = deferred<string>();
    let started = 0;
    let joined = 0;
    const callers = Array.from({ length: 10 }, () =>
      coalescer.run(
        "key",
        () => {
          started += 1;
          return purchase.promise;
        },
        async () => {
          joined += 1;
        },
      ),
    );
    purchase.resolve("receipt-1");
    expect(await Promise.all(callers)).toEqual(Array(10).fill("receipt-1"));
    expect(started).toBe(1);
    expect(joined).toBe(9);
  });

  it("a settled purchase frees its key; other keys never wait for it", async () => {
    const coalescer = new Coalescer<string>();
    const slow = deferred<string>();
    const first = coalescer.run("a", () => slow.promise);
    expect(await coalescer.run("b", async () => "receipt-b")).toBe("receipt-b");
    slow.resolve("receipt-a1");
    expect(await first).toBe("receipt-a1");
    expect(await coalescer.run("a", async () => "receipt-a2")).toBe("receipt-a2");
  });

  it("a failure reaches every caller that joined, and the next caller starts afresh", async () => {
    const coalescer = new Coalescer<string>();
    const purchase = deferred<string>();
    const callers = [coalescer.run("a", () => purchase.promise), coalescer.run("a", async () => "never")];
    purchase.reject(new Error("quote refused"));
    const outcomes = await Promise.allSettled(callers);
    expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : o.value))).toEqual([
      "Error: quote refused",
      "Error: quote refused",
    ]);
    expect(await coalescer.run("a", async () => "receipt-2")).toBe("receipt-2");
  });

  it("a joining caller whose onJoin throws gets that error; the purchase goes on for the others", async () => {
    const coalescer = new Coalescer<string>();
    const purchase = deferred<string>();
    const owner = coalescer.run("a", () => purchase.promise);
    const joiner = coalescer.run(
      "a",
      async () => "never",
      async () => {
        throw new Error("listener stopped");
      },
    );
    await expect(joiner).rejects.toThrow("listener stopped");
    purchase.resolve("receipt-1");
    expect(await owner).toBe("receipt-1");
  });
});
