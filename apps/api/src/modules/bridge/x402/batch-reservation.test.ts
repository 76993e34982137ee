/**
 * The reservation bound of `batch-settlement` (docs/decisions/0091) over the stock in-memory storage: a new
 * reservation is capped, an existing one and everything else pass through, an unchanged channel stays the same
 * object (the storage's "unchanged").
 */
import { InMemoryChannelStorage } from "@x402/evm/batch-settlement/server";
import { describe, expect, it } from "vitest";
import { openedChannel, testChannelConfig, testChannelId } from "../../channels/testing";
import {
  BATCH_SETTLE_MARGIN_SECONDS,
  batchReservationSeconds,
  boundedReservations,
} from "./batch-reservation";

const NOW = 1_800_000_000_000;

describe("boundedReservations", () => {
  it("is the upstream timeout (rounded up) plus the settle margin", () => {
    expect(batchReservationSeconds({ upstreamTimeoutMs: 30_000 })).toBe(30 + BATCH_SETTLE_MARGIN_SECONDS);
    expect(batchReservationSeconds({ upstreamTimeoutMs: 1_001 })).toBe(2 + BATCH_SETTLE_MARGIN_SECONDS);
  });

  it("caps a new reservation, keeps a shorter or an existing one, and passes unchanged channels through", async () => {
    const inner = new InMemoryChannelStorage();
    const storage = boundedReservations(inner, 60_000, () => NOW);
    const id = testChannelId();
    const opened = openedChannel(id, testChannelConfig(), "1000000", NOW);
    await storage.updateChannel(id, () => opened);

    const reserve = (pendingId: string, expiresAt: number) =>
      storage.updateChannel(id, (current) =>
        current
          ? { ...current, pendingRequest: { pendingId, signedMaxClaimable: "10", expiresAt } }
          : current,
      );
    // The stock ten minutes become one minute.
    await reserve("p1", NOW + 600_000);
    expect((await inner.get(id))?.pendingRequest).toMatchObject({ pendingId: "p1", expiresAt: NOW + 60_000 });
    // The same reservation rewritten later keeps what it is given (it is not new).
    await reserve("p1", NOW + 600_000);
    expect((await inner.get(id))?.pendingRequest?.expiresAt).toBe(NOW + 600_000);
    // A shorter one than the cap is left alone.
    await reserve("p2", NOW + 5_000);
    expect((await inner.get(id))?.pendingRequest).toMatchObject({ pendingId: "p2", expiresAt: NOW + 5_000 });
    // An update that changes nothing returns the storage's "unchanged".
    expect((await storage.updateChannel(id, (current) => current)).status).toBe("unchanged");
    // Clearing the reservation passes through.
    await storage.updateChannel(id, (current) =>
      current ? { ...current, pendingRequest: undefined } : current,
    );
    expect((await inner.get(id))?.pendingRequest).toBeUndefined();
    expect(await storage.list()).toHaveLength(1);
  });
});
