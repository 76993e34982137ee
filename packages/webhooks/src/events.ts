/**
 * Webhook event types and their `data` payloads (DESIGN §8; docs/webhooks.md "Events"). Types only plus the
 * envelope serialiser: no database or driver dependency, so merchants can import it
 * (`@tollgate/webhooks/events`). Payloads carry no secrets and stay well under 20 kB; amounts are decimal
 * strings (DESIGN §5).
 */

/**
 * `settlement.confirmed` / `settlement.reverted`: one splitter `Payment` log, or one x402 batch-settlement `Claimed`
 * log crediting the merchant's payout wallet (`scheme`; docs/indexer.md, docs/decisions/0093).
 */
export type SettlementEventData = {
  chain_id: number;
  network: string;
  tx_hash: string;
  log_index: number;
  /** Decimal string (uint64 does not fit a JSON number). */
  block_number: string;
  block_hash: string;
  payer: string;
  /** The payout address the splitter paid (the channel's receiver for `batch-settlement`). */
  merchant: string;
  /** Zero address for the native asset. */
  token: string;
  total_amount: string;
  merchant_amount: string;
  treasury_amount: string;
  ip_creator_amount: string;
  /** The payer's order id; empty for `batch-settlement` (a channel pays many requests and names no order). */
  order_id: string;
  /** Set only when token, merchant and every amount match the quote the order id names (the payer picks it). */
  quote_id: string | null;
  /** The order id named a quote this log does not pay: act on receipts or matched settlements only. */
  quote_mismatch: { quote_id: string; reason: string } | null;
  state: "seen" | "confirmed" | "final" | "orphaned";
  /**
   * How the money came: `splitter` (a `Payment` log, split into the four legs) or `batch-settlement` (the escrow's
   * `Claimed` log: the channel's newly claimed amount, all of it the merchant's; treasury and IP legs are "0").
   */
  scheme: "splitter" | "batch-settlement";
  /** The batch-settlement channel id (0x-hex); null for `splitter`. */
  channel_id: string | null;
};

/**
 * `receipt.suspended` / `receipt.reinstated` / `receipt.revoked` (docs/receipts.md): the receipt
 * follows the Payment log it rests on. `tx_ref`/`log_index`/`block_*` name that log after the change
 * (the re-mined one on reinstatement, the lost one otherwise).
 */
export type ReceiptStateEventData = {
  receipt_id: string;
  quote_id: string;
  state: "valid" | "suspended" | "revoked";
  previous_state: "valid" | "suspended" | "revoked";
  reason: "payment_orphaned" | "payment_remined" | "reorg_window_closed";
  chain_id: number;
  tx_ref: string;
  log_index: number;
  /** Decimal string. */
  block_number: string;
  block_hash: string;
  expires_at: string;
  changed_at: string;
};

/** `receipt.issued`: `/v1/pay` issued a receipt for one of the merchant's quotes (DESIGN §6). */
export type ReceiptIssuedEventData = {
  receipt_id: string;
  quote_id: string;
  payer: string;
  resource: string;
  tier: string;
  quota: number;
  /** USD decimal string. */
  amount: string;
  asset: string;
  network: string;
  chain_id: number;
  tx_ref: string;
  log_index: number;
  issued_at: string;
  expires_at: string;
};

/** `test.ping`: the merchant asked for a test event. */
export type TestPingEventData = {
  message: string;
  merchant_id: string;
};

/** `listing.approved` / `listing.rejected` (SPEC §3.1): an operator decided on a revision of a listing. */
export type ListingDecisionEventData = {
  listing_id: string;
  merchant_id: string;
  /** The revision the operator decided on; a later edit starts a new one. */
  revision: number;
  route: string;
  title: string;
  status: "approved" | "rejected";
  /** The operator's reason, shown to the merchant (rejections only). */
  reason: string | null;
  decided_at: string;
};

/**
 * `merchant.payout_changed` (SPEC §2.2 rule 4): the owner step-up changed the payout. Sent to the merchant's current
 * webhook, so a change the owner did not make is seen at once.
 */
export type PayoutChangedEventData = {
  merchant_id: string;
  previous_pay_to: { evm?: string; solana?: string; near?: string; aptos?: string };
  pay_to: { evm?: string; solana?: string; near?: string; aptos?: string };
  /** The current payout wallet that signed the change: `evm` or `solana`, and its address. */
  signed_by: { kind: "evm" | "solana"; address: string };
  changed_at: string;
};

/**
 * Event type → `data`. A new event type is added here with its payload; the compiler then refuses an event whose
 * `data` does not match. An event cannot be enqueued before its payload is typed here.
 */
export interface WebhookEventDataMap {
  "settlement.confirmed": SettlementEventData;
  "settlement.reverted": SettlementEventData;
  "receipt.issued": ReceiptIssuedEventData;
  "receipt.suspended": ReceiptStateEventData;
  "receipt.reinstated": ReceiptStateEventData;
  "receipt.revoked": ReceiptStateEventData;
  "test.ping": TestPingEventData;
  "listing.approved": ListingDecisionEventData;
  "listing.rejected": ListingDecisionEventData;
  "merchant.payout_changed": PayoutChangedEventData;
}

export type WebhookEventType = keyof WebhookEventDataMap;

export const WEBHOOK_EVENT_TYPES = [
  "settlement.confirmed",
  "settlement.reverted",
  "receipt.issued",
  "receipt.suspended",
  "receipt.reinstated",
  "receipt.revoked",
  "test.ping",
  "listing.approved",
  "listing.rejected",
  "merchant.payout_changed",
] as const satisfies readonly WebhookEventType[];

/** What the envelope on the wire looks like (DESIGN §8): `{id, type, created_at, data}`. */
export interface WebhookEnvelope<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  data: T;
}

/** A verified envelope narrowed by its `type` (`switch (event.type)` gives the typed `data`). */
export type WebhookEvent = {
  [K in WebhookEventType]: WebhookEnvelope<WebhookEventDataMap[K]> & { type: K };
}[WebhookEventType];

/** An event for the outbox: one merchant, one typed payload. */
export type NewWebhookEvent = {
  [K in WebhookEventType]: { merchantId: string; type: K; data: WebhookEventDataMap[K] };
}[WebhookEventType];

/** The exact body every attempt sends (the signature covers these bytes; key order is part of it). */
export function serializeWebhookEnvelope(event: {
  id: string;
  type: string;
  createdAt: Date;
  data: unknown;
}): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: event.data,
  });
}
