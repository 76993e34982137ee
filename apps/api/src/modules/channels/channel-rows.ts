/**
 * The stock scheme's `Channel` record and its `payment_channels` row, both ways (docs/decisions/0082). Amounts are
 * decimal strings of unsigned integers in the record and numeric(78,0) in the row: they pass through as exact
 * decimal text, never as JavaScript numbers. A record that is not well-formed is refused before it is written.
 */
import type { ChannelConfigRecord, paymentChannels } from "@tollgate/db";
import type { Channel } from "@x402/evm/batch-settlement/server";

export type ChannelRow = typeof paymentChannels.$inferSelect;

/** The columns a write of a `Channel` sets (the key, status, claim, version and time are the storage's). */
export type ChannelWrite = Pick<
  ChannelRow,
  | "config"
  | "payer"
  | "receiver"
  | "token"
  | "balance"
  | "totalClaimed"
  | "chargedCumulative"
  | "signedMaxClaimable"
  | "signature"
  | "withdrawRequestedAt"
  | "refundNonce"
  | "onchainSyncedAt"
  | "lastRequestAt"
  | "pendingId"
  | "pendingSignedMaxClaimable"
  | "pendingExpiresAt"
>;

/** A channel record the storage will not write: an amount that is not an unsigned integer, a bad id or time. */
export class ChannelRecordError extends Error {
  override readonly name = "ChannelRecordError";
  constructor(
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const UINT = /^\d{1,78}$/;
const CHANNEL_ID = /^0x[0-9a-f]{64}$/;

/** The storage key of a channel id: lowercase, as the stock storages normalise it. */
export function channelKey(channelId: string): string {
  const key = channelId.toLowerCase();
  if (!CHANNEL_ID.test(key))
    throw new ChannelRecordError("channelId", `not a 32-byte hex channel id: ${channelId}`);
  return key;
}

/** `value` as canonical decimal text (no leading zeros), or ChannelRecordError. */
export function uintText(field: string, value: string): string {
  if (typeof value !== "string" || !UINT.test(value)) {
    throw new ChannelRecordError(
      field,
      `${field} must be an unsigned integer in decimal, got ${String(value)}`,
    );
  }
  return BigInt(value).toString();
}

function safeInt(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ChannelRecordError(field, `${field} must be a non-negative safe integer, got ${String(value)}`);
  }
  return value;
}

export function channelFromRow(row: ChannelRow): Channel {
  const channel: Channel = {
    channelId: row.channelId,
    channelConfig: row.config,
    chargedCumulativeAmount: row.chargedCumulative,
    signedMaxClaimable: row.signedMaxClaimable,
    signature: row.signature,
    balance: row.balance,
    totalClaimed: row.totalClaimed,
    withdrawRequestedAt: row.withdrawRequestedAt,
    refundNonce: row.refundNonce,
    lastRequestTimestamp: row.lastRequestAt,
  };
  if (row.onchainSyncedAt !== null) channel.onchainSyncedAt = row.onchainSyncedAt;
  if (row.pendingId !== null && row.pendingExpiresAt !== null) {
    channel.pendingRequest = {
      pendingId: row.pendingId,
      signedMaxClaimable: row.pendingSignedMaxClaimable ?? "0",
      expiresAt: row.pendingExpiresAt,
    };
  }
  return channel;
}

export function channelWrite(channel: Channel): ChannelWrite {
  const config = channel.channelConfig as ChannelConfigRecord;
  const pending = channel.pendingRequest;
  return {
    config,
    payer: config.payer.toLowerCase(),
    receiver: config.receiver.toLowerCase(),
    token: config.token.toLowerCase(),
    balance: uintText("balance", channel.balance),
    totalClaimed: uintText("totalClaimed", channel.totalClaimed),
    chargedCumulative: uintText("chargedCumulativeAmount", channel.chargedCumulativeAmount),
    signedMaxClaimable: uintText("signedMaxClaimable", channel.signedMaxClaimable),
    signature: channel.signature,
    withdrawRequestedAt: safeInt("withdrawRequestedAt", channel.withdrawRequestedAt),
    refundNonce: safeInt("refundNonce", channel.refundNonce),
    onchainSyncedAt:
      channel.onchainSyncedAt === undefined ? null : safeInt("onchainSyncedAt", channel.onchainSyncedAt),
    lastRequestAt: safeInt("lastRequestTimestamp", channel.lastRequestTimestamp),
    pendingId: pending ? pending.pendingId : null,
    pendingSignedMaxClaimable: pending
      ? uintText("pendingRequest.signedMaxClaimable", pending.signedMaxClaimable)
      : null,
    pendingExpiresAt: pending ? safeInt("pendingRequest.expiresAt", pending.expiresAt) : null,
  };
}
