import { describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../../test/harness";
import {
  type BridgeOrder,
  claimKeys,
  createMemoryOrderStore,
  createRedisOrderStore,
  type OrderStore,
} from "./orders";

const order = (id: string): BridgeOrder => ({
  id: id as BridgeOrder["id"],
  provider: "acme",
  network: "amoy",
  requestHash: "ab",
  createdAt: 1,
  expiresAt: 2,
  payMatic: undefined,
});

function contract(
  name: string,
  make: () => { store: OrderStore; other?: OrderStore; close(): Promise<void> },
) {
  describe(name, () => {
    it("keeps orders for their retention and claims atomically: lease, release, consume", async () => {
      const { store, close } = make();
      try {
        await store.putOrder(order("ord_a1"), 60_000);
        expect(await store.getOrder("ord_a1")).toEqual(order("ord_a1"));
        expect(await store.getOrder("ord_missing")).toBeUndefined();
        const keys = [claimKeys.order("ord_a1"), claimKeys.tx(80002, "0xAB")];
        const first = await store.claim(keys, 60_000);
        expect(first.ok).toBe(true);
        expect(await store.claim([claimKeys.tx(80002, "0xab")], 60_000)).toEqual({
          ok: false,
          key: claimKeys.tx(80002, "0xab"),
          state: "in_flight",
        });
        // Only the lease holder releases.
        await store.release(keys, "lease:not-mine");
        expect(await store.state(keys[0]!)).toBe("in_flight");
        if (!first.ok) throw new Error("unreachable");
        await store.release(keys, first.lease);
        expect(await store.state(keys[0]!)).toBe("free");
        const second = await store.claim(keys, 60_000);
        if (!second.ok) throw new Error("claim after release failed");
        await store.consume(keys, second.lease, 60_000);
        expect(await store.state(keys[1]!)).toBe("used");
        expect(await store.claim([keys[1]!], 60_000)).toMatchObject({ ok: false, state: "used" });
      } finally {
        await close();
      }
    });

    it("keeps a payment-identifier result for its retention only", async () => {
      const { store, close } = make();
      try {
        const key = claimKeys.paymentId(80002, "0xF", `pid-${Date.now()}-0123456789`);
        expect(await store.getResult(key)).toBeUndefined();
        await store.putResult(key, '{"kept":true}', 60_000);
        expect(await store.getResult(key)).toBe('{"kept":true}');
        const brief = claimKeys.paymentId(80002, "0xF", `pid-${Date.now()}-brief-000000`);
        await store.putResult(brief, "x", 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await store.getResult(brief)).toBeUndefined();
      } finally {
        await close();
      }
    });

    it("a lapsed lease makes the payment claimable again", async () => {
      const { store, close } = make();
      try {
        const key = claimKeys.authorization(80002, "0xT", "0xF", `0x${Date.now()}`);
        expect((await store.claim([key], 50)).ok).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 120));
        expect((await store.claim([key], 50)).ok).toBe(true);
      } finally {
        await close();
      }
    });

    it("extend: only the holder extends, all keys or none; a lost lease is refused", async () => {
      const { store, close } = make();
      try {
        const tag = `${Date.now()}${Math.random()}`;
        const keys = [claimKeys.order(`ord_x${tag}`), claimKeys.tx(80002, `0x${tag}`)];
        const held = await store.claim(keys, 60_000);
        if (!held.ok) throw new Error("claim failed");
        expect(await store.extend(keys, "lease:not-mine", 60_000)).toBe(false);
        expect(await store.extend(keys, held.lease, 120_000)).toBe(true);
        expect(await store.state(keys[0]!)).toBe("in_flight");
        // A key the holder no longer has: nothing is extended.
        await store.release([keys[1]!], held.lease);
        expect(await store.extend(keys, held.lease, 120_000)).toBe(false);
        await store.consume([keys[0]!], held.lease, 60_000);
        expect(await store.extend([keys[0]!], held.lease, 120_000)).toBe(false);
        expect(await store.state(keys[0]!)).toBe("used");
      } finally {
        await close();
      }
    });

    it("20 concurrent claims of one key (across clients when shared): exactly one wins", async () => {
      const { store, other, close } = make();
      try {
        const key = claimKeys.tx(80002, `0x${Math.random().toString(16).slice(2)}`);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 || !other ? store : other).claim([key], 60_000)),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
      } finally {
        await close();
      }
    });
  });
}

contract("memory order store", () => {
  const store = createMemoryOrderStore();
  return { store, close: async () => {} };
});

const redisUrl = TEST_REDIS_URL;
if (redisUrl) {
  contract("redis order store (TEST_REDIS_URL)", () => {
    const prefix = `tollgate:test:orders:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    const store = createRedisOrderStore({ url: redisUrl, prefix });
    const other = createRedisOrderStore({ url: redisUrl, prefix });
    return {
      store,
      other,
      close: async () => {
        await store.close();
        await other.close();
      },
    };
  });
}

describe("redis order store without a server", () => {
  it("fails closed with 503 bridge_store_unavailable, never falls back", async () => {
    const store = createRedisOrderStore({
      url: "redis://127.0.0.1:1",
      prefix: "tollgate:bridge:",
      connectWaitMs: 100,
    });
    try {
      await expect(store.putOrder(order("ord_x1"), 1000)).rejects.toMatchObject({
        code: "bridge_store_unavailable",
        status: 503,
      });
      await expect(store.claim(["k"], 1000)).rejects.toMatchObject({ code: "bridge_store_unavailable" });
    } finally {
      await store.close();
    }
  });
});
