import { describe, expect, it } from "vitest";
import { createTtlCache } from "./feed-cache";

function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("createTtlCache", () => {
  it("concurrent gets of one key share one load; the value serves until the TTL ends", async () => {
    const clock = manualClock();
    const cache = createTtlCache<string>(clock, { ttlMs: 60_000, maxEntries: 10 });
    const pending = deferred<string>();
    const first = cache.get("k", () => pending.promise);
    const second = cache.get("k", () => Promise.resolve("other"));
    pending.resolve("v1");
    expect(await Promise.all([first, second])).toEqual(["v1", "v1"]);
    expect(cache.loads).toBe(1);
    clock.advance(59_999);
    expect(await cache.get("k", () => Promise.resolve("v2"))).toBe("v1");
    clock.advance(1);
    expect(await cache.get("k", () => Promise.resolve("v2"))).toBe("v2");
    expect(cache.loads).toBe(2);
  });

  it("a failed load is not kept: the next get loads again", async () => {
    const cache = createTtlCache<string>(manualClock(), { ttlMs: 60_000, maxEntries: 10 });
    await expect(cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("k", () => Promise.resolve("up"))).toBe("up");
  });

  it("holds at most maxEntries keys (keys come from user input), dropping the oldest", async () => {
    const cache = createTtlCache<string>(manualClock(), { ttlMs: 60_000, maxEntries: 2 });
    await cache.get("a", () => Promise.resolve("a"));
    await cache.get("b", () => Promise.resolve("b"));
    await cache.get("c", () => Promise.resolve("c"));
    expect(await cache.get("a", () => Promise.resolve("a2"))).toBe("a2");
    expect(await cache.get("c", () => Promise.resolve("c2"))).toBe("c");
    expect(await cache.get("__proto__", () => Promise.resolve("p"))).toBe("p");
  });
});
