/**
 * How long a `batch-settlement` voucher's reservation lives (docs/decisions/0091; docs/sessions.md "Restarts and
 * replicas"). The stock server reserves the channel until the requirement's `maxTimeoutSeconds` (the order TTL,
 * 10 min by default) has passed; a process killed between reserving and committing leaves that reservation in the
 * shared channel row, and every call on the channel is refused `channel_busy` until it lapses. The offer's
 * `maxTimeoutSeconds` cannot be shortened instead: it is also the deposit authorization's validity, which must
 * allow for the payer's and the chain's clocks. So the storage the stock server writes through caps a new
 * reservation at what one paid call can really take here: the upstream timeout plus the settle margin.
 *
 * Invariant: a reservation outlives the call that holds it on a healthy node (upstream answer + commit or deposit
 * mined within the margin). Safety never depends on it: a commit checks its own reservation id under the row lock,
 * so a call that outlived its reservation and lost it is refused, never charged twice.
 */
import type { Channel, ChannelStorage } from "@x402/evm/batch-settlement/server";
import type { BridgeConfig } from "../config";

/** Seconds a settle may take after the upstream answered: a voucher's commit, or a deposit mined on chain. */
export const BATCH_SETTLE_MARGIN_SECONDS = 30;

/** The longest a voucher's reservation lives, in seconds. */
export function batchReservationSeconds(config: Pick<BridgeConfig, "upstreamTimeoutMs">): number {
  return Math.ceil(config.upstreamTimeoutMs / 1000) + BATCH_SETTLE_MARGIN_SECONDS;
}

/**
 * `storage` with every NEW reservation (a pending id the row did not hold) expiring at most `maxMs` after it is
 * written. `now` is the wall clock, as the stock scheme's own expiry is. Anything else passes through unchanged,
 * and an unchanged channel stays the same object (the storage tells "unchanged" by identity).
 */
export function boundedReservations(
  storage: ChannelStorage,
  maxMs: number,
  now: () => number = Date.now,
): ChannelStorage {
  const capped = (current: Channel | undefined, next: Channel | undefined): Channel | undefined => {
    const pending = next?.pendingRequest;
    if (!next || !pending || pending.pendingId === current?.pendingRequest?.pendingId) return next;
    const latest = now() + maxMs;
    if (pending.expiresAt <= latest) return next;
    return { ...next, pendingRequest: { ...pending, expiresAt: latest } };
  };
  return {
    get: (channelId) => storage.get(channelId),
    list: () => storage.list(),
    updateChannel: (channelId, update) =>
      storage.updateChannel(channelId, (current) => capped(current, update(current))),
  };
}
