/**
 * The relayer key's one send lane per process and chain (docs/decisions/0086; docs/bridge.md "Relayer"): every
 * transaction the bridge sends from its relayer key (an `exact` settlement, a `batch-settlement` deposit, a claim
 * batch, its sweep, a refund) takes its nonce here, so claims never race settlements for nonces.
 *
 * Invariants:
 * - Only the send is serialized: a holder reads the nonce, signs and broadcasts, then gives the lane back; receipts
 *   are awaited outside it.
 * - The nonce is the larger of the node's pending count (other senders of the key) and the last nonce sent + 1 (a
 *   lagging node); a send that failed for certain forgets the local count, so the next one re-reads the node.
 */
import type { Address } from "viem";

export interface RelayerLane {
  /**
   * Runs `send` alone on the lane with the next nonce. `send` answers whether the nonce was used (broadcast, or
   * possibly broadcast); a throw means it was not.
   */
  send<T>(
    pendingCount: () => Promise<number>,
    send: (nonce: number) => Promise<{ value: T; used: boolean }>,
  ): Promise<T>;
}

const lanes = new Map<string, RelayerLane>();

/** The lane of `address` on `chainId` in this process (created on first use). */
export function relayerLane(chainId: number, address: Address): RelayerLane {
  const key = `${chainId}:${address.toLowerCase()}`;
  let lane = lanes.get(key);
  if (!lane) {
    lane = createLane();
    lanes.set(key, lane);
  }
  return lane;
}

function createLane(): RelayerLane {
  let slot: Promise<unknown> = Promise.resolve();
  let nextNonce: number | undefined;
  return {
    send(pendingCount, send) {
      const run = slot.then(async () => {
        try {
          const nonce = Math.max(await pendingCount(), nextNonce ?? 0);
          const outcome = await send(nonce);
          nextNonce = outcome.used ? nonce + 1 : undefined;
          return outcome.value;
        } catch (error) {
          nextNonce = undefined;
          throw error;
        }
      });
      slot = run.catch(() => undefined);
      return run;
    },
  };
}
