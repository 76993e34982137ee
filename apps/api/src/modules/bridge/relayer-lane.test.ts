/**
 * The relayer key's send lane (docs/decisions/0086): concurrent senders of one key get distinct, consecutive nonces
 * even when the node's pending count lags; a failed send makes the next one re-read the node; keys and chains have
 * lanes of their own.
 */
import { describe, expect, it } from "vitest";
import { relayerLane } from "./relayer-lane";
import { randomAddress } from "./testing";

describe("relayer send lane", () => {
  it("gives concurrent senders consecutive nonces while the node still reports the old pending count", async () => {
    const lane = relayerLane(31337, randomAddress());
    const taken: number[] = [];
    // The node lags: it reports 7 for every read, as if no transaction had reached it yet.
    const sends = Array.from({ length: 5 }, () =>
      lane.send(
        async () => 7,
        async (nonce) => {
          taken.push(nonce);
          await new Promise((resolve) => setTimeout(resolve, 1));
          return { value: nonce, used: true };
        },
      ),
    );
    expect(await Promise.all(sends)).toEqual([7, 8, 9, 10, 11]);
    expect(taken).toEqual([7, 8, 9, 10, 11]);
  });

  it("forgets its count after a send that failed or used no nonce, and keeps running", async () => {
    const lane = relayerLane(31337, randomAddress());
    expect(
      await lane.send(
        async () => 3,
        async (nonce) => ({ value: nonce, used: true }),
      ),
    ).toBe(3);
    await expect(
      lane.send(
        async () => 3,
        async () => {
          throw new Error("rejected by the node");
        },
      ),
    ).rejects.toThrow("rejected by the node");
    // The failed send used nothing: the node's count (now 4) is the truth again.
    expect(
      await lane.send(
        async () => 4,
        async (nonce) => ({ value: nonce, used: false }),
      ),
    ).toBe(4);
    expect(
      await lane.send(
        async () => 4,
        async (nonce) => ({ value: nonce, used: true }),
      ),
    ).toBe(4);
    expect(
      await lane.send(
        async () => 4,
        async (nonce) => ({ value: nonce, used: true }),
      ),
    ).toBe(5);
  });

  it("is one lane per key and chain", async () => {
    const address = randomAddress();
    expect(relayerLane(1, address)).toBe(relayerLane(1, address.toLowerCase() as typeof address));
    expect(relayerLane(1, address)).not.toBe(relayerLane(2, address));
    expect(relayerLane(1, address)).not.toBe(relayerLane(1, randomAddress()));
  });
});
