/**
 * The quote path's merchant cache: hits within the lifetime, refreshes after it, never stores a read
 * that raced an invalidation, never caches a miss, and shares one read between concurrent misses.
 */
import { describe, expect, it } from "vitest";
import { createMerchantCache } from "./merchant-cache";
import type { MerchantRecord } from "./merchant-service";

const merchant = (name: string) =>
  ({ id: "mrch_1111111111111111", name, tiers: {} }) as unknown as MerchantRecord;

function setup(ttlMs = 1_000) {
  let nowMs = 1_000_000;
  const clock = { now: () => new Date(nowMs) };
  const cache = createMerchantCache(clock, ttlMs);
  let reads = 0;
  let current: MerchantRecord | undefined = merchant("a");
  const load = async () => {
    reads++;
    return current;
  };
  return {
    cache,
    load,
    reads: () => reads,
    set: (m: MerchantRecord | undefined) => {
      current = m;
    },
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe("merchant cache", () => {
  it("happy: reads once within the lifetime, again after it", async () => {
    const t = setup();
    expect((await t.cache.get("m", t.load))?.name).toBe("a");
    t.set(merchant("b"));
    expect((await t.cache.get("m", t.load))?.name).toBe("a");
    expect(t.reads()).toBe(1);
    t.advance(1_000);
    expect((await t.cache.get("m", t.load))?.name).toBe("b");
    expect(t.reads()).toBe(2);
  });

  it("invalidate: the next read goes to the database", async () => {
    const t = setup();
    await t.cache.get("m", t.load);
    t.set(merchant("b"));
    t.cache.invalidate("m");
    expect((await t.cache.get("m", t.load))?.name).toBe("b");
  });

  it("race: a read that started before an invalidation is returned to its caller but never stored", async () => {
    const t = setup();
    let release!: (m: MerchantRecord) => void;
    const slow = t.cache.get("m", () => new Promise((resolve) => (release = resolve)));
    t.cache.invalidate("m");
    release(merchant("old"));
    expect((await slow)?.name).toBe("old");
    t.set(merchant("new"));
    expect((await t.cache.get("m", t.load))?.name).toBe("new");
  });

  it("a miss is not cached; concurrent misses share one read; a zero lifetime caches nothing", async () => {
    const t = setup();
    t.set(undefined);
    expect(await t.cache.get("m", t.load)).toBeUndefined();
    t.set(merchant("a"));
    const [one, two] = await Promise.all([t.cache.get("m", t.load), t.cache.get("m", t.load)]);
    expect(one?.name).toBe("a");
    expect(two).toBe(one);
    expect(t.reads()).toBe(2);
    const z = setup(0);
    await z.cache.get("m", z.load);
    await z.cache.get("m", z.load);
    expect(z.reads()).toBe(2);
  });
});
