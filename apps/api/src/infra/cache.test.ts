/**
 * The one TTL cache (./cache.ts): single flight, expiry by the injected clock (backwards jumps included), failed
 * loads and misses not kept, invalidation racing a load, and the bound on keys.
 */
import { describe, expect, it } from "vitest";
import { createCache, createCachedValue } from "./cache";

function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

describe("createCache", () => {
  it("concurrent gets of one key share one load; the value serves until the TTL ends", async () => {
    const clock = manualClock();
    const cache = createCache<string>(clock, { ttlMs: 60_000, maxEntries: 10 });
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

  it("a clock that jumps backwards makes the value stale, never immortal", async () => {
    const clock = manualClock();
    const cache = createCache<string>(clock, { ttlMs: 60_000, maxEntries: 10 });
    await cache.get("k", () => Promise.resolve("before"));
    clock.advance(-1);
    expect(await cache.get("k", () => Promise.resolve("after"))).toBe("after");
  });

  it("a failed load is not kept: the next get loads again", async () => {
    const cache = createCache<string>(manualClock(), { ttlMs: 60_000, maxEntries: 10 });
    await expect(cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("k", () => Promise.resolve("up"))).toBe("up");
  });

  it("a miss (undefined) is not stored; a zero lifetime stores nothing", async () => {
    const cache = createCache<string | undefined>(manualClock(), { ttlMs: 60_000, maxEntries: 10 });
    expect(await cache.get("k", () => Promise.resolve(undefined))).toBeUndefined();
    expect(await cache.get("k", () => Promise.resolve("found"))).toBe("found");
    const none = createCache<string>(manualClock(), { ttlMs: 0, maxEntries: 10 });
    await none.get("k", () => Promise.resolve("a"));
    expect(await none.get("k", () => Promise.resolve("b"))).toBe("b");
  });

  it("invalidate: the next get loads; a load that started before it is returned but never stored", async () => {
    const cache = createCache<string>(manualClock(), { ttlMs: 60_000, maxEntries: 10 });
    await cache.get("k", () => Promise.resolve("old"));
    cache.invalidate("k");
    expect(await cache.get("k", () => Promise.resolve("new"))).toBe("new");
    const slow = deferred<string>();
    cache.invalidate("k");
    const racing = cache.get("k", () => slow.promise);
    cache.invalidate("k");
    slow.resolve("stale");
    expect(await racing).toBe("stale");
    expect(await cache.get("k", () => Promise.resolve("fresh"))).toBe("fresh");
    cache.clear();
    expect(await cache.get("k", () => Promise.resolve("after clear"))).toBe("after clear");
  });

  it("holds at most maxEntries keys (keys come from user input), dropping the least recently used", async () => {
    const cache = createCache<string>(manualClock(), { ttlMs: 60_000, maxEntries: 2 });
    await cache.get("a", () => Promise.resolve("a"));
    await cache.get("b", () => Promise.resolve("b"));
    await cache.get("c", () => Promise.resolve("c"));
    expect(await cache.get("a", () => Promise.resolve("a2"))).toBe("a2");
    expect(await cache.get("c", () => Promise.resolve("c2"))).toBe("c");
    expect(await cache.get("__proto__", () => Promise.resolve("p"))).toBe("p");
  });
});

describe("createCachedValue", () => {
  it("keeps one value for its lifetime; invalidate drops it", async () => {
    const clock = manualClock();
    let reads = 0;
    const value = createCachedValue(clock, 30_000, async () => ++reads);
    expect([await value.get(), await value.get()]).toEqual([1, 1]);
    value.invalidate();
    expect(await value.get()).toBe(2);
    clock.advance(30_000);
    expect(await value.get()).toBe(3);
  });
});
