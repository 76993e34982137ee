/**
 * x402 `batch-settlement` channels and their claims (docs/decisions/0082-durable-channel-storage.md;
 * docs/sessions.md "Channel storage"). A channel row is the server's per-channel state from the scheme spec
 * (`specs/schemes/batch-settlement/scheme_batch_settlement_evm.md`, "Per-Channel State"), shared by every API
 * replica. A claim row is written before its batch is submitted, so a restart resumes it instead of losing it.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { atomic } from "./columns";

/** `closed`: the scheme deleted the channel (full cooperative refund); kept as a tombstone for its claims. */
/** The scheme's immutable `ChannelConfig` (its EIP-712 hash is the channel id), as JSON. */
export interface ChannelConfigRecord {
  payer: `0x${string}`;
  payerAuthorizer: `0x${string}`;
  receiver: `0x${string}`;
  receiverAuthorizer: `0x${string}`;
  token: `0x${string}`;
  withdrawDelay: number;
  salt: `0x${string}`;
}

export const CHANNEL_STATUSES = ["open", "closed"] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

export const paymentChannels = pgTable(
  "payment_channels",
  {
    chainId: integer("chain_id").notNull(),
    /** The EIP-712 channel id, lowercase 0x-hex (the stock storages normalise the same way). */
    channelId: text("channel_id").notNull(),
    status: text("status", { enum: CHANNEL_STATUSES }).notNull(),
    config: jsonb("config").$type<ChannelConfigRecord>().notNull(),
    /** From `config`, lowercase, for queries by payer / receiver / token. */
    payer: text("payer").notNull(),
    receiver: text("receiver").notNull(),
    token: text("token").notNull(),
    /** Mirrored from the chain: deposits minus withdrawals and refunds. */
    balance: atomic("balance").notNull(),
    /** Mirrored from the chain, and raised by confirmed claims; never lowered. */
    totalClaimed: atomic("total_claimed").notNull(),
    chargedCumulative: atomic("charged_cumulative").notNull(),
    /** The latest voucher: its signed cumulative ceiling and the payer's EIP-712 signature. */
    signedMaxClaimable: atomic("signed_max_claimable").notNull(),
    signature: text("signature").notNull(),
    withdrawRequestedAt: bigint("withdraw_requested_at", { mode: "number" }).notNull(),
    refundNonce: bigint("refund_nonce", { mode: "number" }).notNull(),
    /** Epoch milliseconds, as the scheme keeps them. */
    onchainSyncedAt: bigint("onchain_synced_at", { mode: "number" }),
    lastRequestAt: bigint("last_request_at", { mode: "number" }).notNull(),
    /** The in-flight request's reservation (the scheme's `pendingRequest`), all three set or none. */
    pendingId: text("pending_id"),
    pendingSignedMaxClaimable: atomic("pending_signed_max_claimable"),
    pendingExpiresAt: bigint("pending_expires_at", { mode: "number" }),
    /** The unfinished claim this channel is in; a channel is in at most one at a time. */
    claimId: text("claim_id"),
    /** Raised by every write: a reader can tell two states apart without comparing fields. */
    version: integer("version").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.chainId, table.channelId] }),
    check(
      "payment_channels_pending_all_or_none",
      sql`(${table.pendingId} is null) = (${table.pendingExpiresAt} is null)`,
    ),
    index("payment_channels_claimable_idx")
      .on(table.chainId, table.receiver)
      .where(
        sql`${table.status} = 'open' and ${table.claimId} is null and ${table.chargedCumulative} > ${table.totalClaimed}`,
      ),
  ],
);

/**
 * pending: written, not yet known to be sent; submitted: sent, its transaction hash recorded; confirmed: mined
 * and applied to the channels; failed: given up (the channels are free for a later claim).
 */
export const CLAIM_STATES = ["pending", "submitted", "confirmed", "failed"] as const;
export type ClaimState = (typeof CLAIM_STATES)[number];

/** One row of a claim batch: the stock `BatchSettlementVoucherClaim` and the channel it claims for. */
export interface ClaimEntry {
  channelId: string;
  channelConfig: ChannelConfigRecord;
  maxClaimableAmount: string;
  signature: string;
  /** The cumulative amount claimed for the channel (absolute, not a delta). */
  totalClaimed: string;
}

export const channelClaims = pgTable(
  "channel_claims",
  {
    /** `clm_` + a hash of the chain and the (channel, cumulative amount) pairs: the batch's idempotency key. */
    id: text("id").primaryKey(),
    chainId: integer("chain_id").notNull(),
    state: text("state", { enum: CLAIM_STATES }).notNull(),
    entries: jsonb("entries").$type<ClaimEntry[]>().notNull(),
    txHash: text("tx_hash"),
    attempts: integer("attempts").notNull(),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    check("channel_claims_id_prefix", sql`${table.id} like 'clm\\_%'`),
    index("channel_claims_unfinished_idx")
      .on(table.chainId, table.createdAt)
      .where(sql`${table.state} in ('pending', 'submitted')`),
  ],
);
