/**
 * The one list of error codes (DESIGN.md §7), each mapped once to its HTTP status.
 * Codes are stable API: add new ones, never rename or reuse.
 */
import type { FieldError } from "./field-errors";

export const ERROR_STATUS = {
  // 400: the request itself is malformed or breaks a rule.
  validation_failed: 400,
  malformed_json: 400,
  idempotency_key_required: 400,
  unknown_tier: 400,
  asset_not_supported: 400,
  network_not_allowed: 400,
  // 402: a gate wants payment (SPEC §7).
  payment_required: 402,
  receipt_invalid: 402,
  quota_exhausted: 402,
  // 401 / 403: who is asking.
  merchant_auth_required: 401,
  invalid_merchant_secret: 401,
  forbidden: 403,
  payout_change_requires_step_up: 403,
  payment_authorization_invalid: 403,
  payment_authorization_expired: 403,
  // Operators (SPEC §4.3, §5 adminSession): admin sessions, roles, same-origin proof, metrics scrapes.
  admin_auth_required: 401,
  invalid_credentials: 401,
  metrics_auth_required: 401,
  admin_role_forbidden: 403,
  csrf_check_failed: 403,
  // 404 / 405 / 409 / 413 / 415 / 422
  not_found: 404,
  merchant_not_found: 404,
  quote_not_found: 404,
  gateway_route_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_in_use: 409,
  payout_wallet_missing: 409,
  settlement_version_unavailable: 409,
  quote_already_paid: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  tx_reverted: 422,
  payment_log_missing: 422,
  payment_log_ambiguous: 422,
  payment_payer_mismatch: 422,
  payment_merchant_mismatch: 422,
  payment_token_mismatch: 422,
  payment_amount_mismatch: 422,
  payment_after_quote_expiry: 422,
  // Legacy bridge and x402 (SPEC §2.6, §4.5; docs/bridge.md).
  order_not_found: 404,
  provider_not_found: 404,
  order_request_mismatch: 422,
  order_already_used: 409,
  payment_already_used: 409,
  payment_in_flight: 409,
  payment_pending: 425,
  payment_after_order_expiry: 422,
  solana_settlement_disabled: 422,
  x402_payload_malformed: 400,
  x402_payment_invalid: 402,
  x402_settlement_failed: 402,
  // Marketplace (SPEC §2.3, §3.1): listings, moderation.
  listing_not_found: 404,
  listing_limit_reached: 409,
  listing_not_pending: 409,
  listing_revision_stale: 409,
  listing_not_approved: 409,
  listing_not_suspended: 409,
  // Bridge security (docs/bridge.md "Threat model"): the paid ip creator must be the quoted one.
  payment_ip_creator_mismatch: 422,
  // Identity gate (SPEC §5, §7; docs/identity-gate.md).
  identity_required: 402,
  identity_nonce_invalid: 402,
  identity_header_malformed: 400,
  identity_signature_invalid: 403,
  identity_seat_missing: 403,
  identity_seat_outdated: 403,
  identity_store_unavailable: 503,
  solana_rpc_unavailable: 503,
  // Receipts follow their payment (docs/receipts.md): a reorged or lost payment suspends or revokes its receipt.
  receipt_revoked: 402,
  revocation_feed_stale: 503,
  // 429: limits (SPEC §8).
  rate_limited: 429,
  login_locked: 429,
  // 5xx: never leak internals.
  internal_error: 500,
  upstream_failed: 502,
  service_unavailable: 503,
  price_feed_stale: 503,
  chain_unavailable: 503,
  jwks_unavailable: 503,
  upstream_timeout: 504,
  upstream_refused: 503,
  bridge_store_unavailable: 503,
  facilitator_busy: 503,
  quota_store_reset: 503,
  // Hostile input: bodies that cannot be read, requests Node's HTTP parser refuses, bodiless PATCH/PUT.
  malformed_body: 400,
  body_required: 400,
  malformed_request: 400,
  request_timeout: 408,
  request_header_too_large: 431,
  // Operator actions (SPEC §4.3): pause, one-time configuration, webhook replay.
  service_paused: 503,
  already_paused: 409,
  onchain_pause_unavailable: 409,
  not_paused: 409,
  config_already_initialized: 409,
  network_not_configured: 404,
  webhook_event_not_found: 404,
  // Partners (SPEC §4.2 `/api/partner/{wallet}`, §4.3 `register-partner`).
  partner_not_found: 404,

  // User sessions (SPEC §5 `userSession`; docs/users.md): wallet sign-in, linked wallets, public usage.
  user_auth_required: 401,
  signin_message_malformed: 400,
  signin_message_rejected: 401,
  signin_nonce_invalid: 401,
  signin_signature_invalid: 401,
  wallet_already_linked: 409,
  wallet_not_linked: 403,

  // A network halted by a too-deep reorg is resumed only by an operator: no automatic recovery past finality.
  network_not_halted: 409,
  // Operator dashboards (SPEC §4.3 `/api/dashboard/failed`): the refund-by-hand queue.
  failed_payment_not_found: 404,
  // Payout change with owner step-up (SPEC §2.2 rule 4; docs/merchants.md).
  payout_change_nonce_invalid: 409,
  payout_change_signature_invalid: 403,
  payout_change_mismatch: 409,
  payout_change_signer_unavailable: 409,
  // Audit retention (docs/operations.md "Audit trail retention"): export, checkpoint and prune.
  audit_cut_in_future: 422,
  audit_cut_empty: 409,
  audit_prune_leaves_nothing: 409,
  audit_export_mismatch: 409,
  // Operator actions in the console (docs/decisions/0071-operator-actions-in-the-console.md).
  merchant_suspended: 403,
  merchant_already_suspended: 409,
  merchant_not_suspended: 409,
  last_owner_required: 409,
  admin_not_found: 404,
  invitation_invalid: 404,
  // The console's test paid call (docs/decisions/0075-test-paid-call-endpoint.md): local chains, test mode only.
  test_paid_call_unavailable: 404,
  test_paid_call_live_merchant: 409,
  test_paid_call_chain_not_local: 409,
  test_paid_call_in_progress: 409,
  test_paid_call_failed: 422,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export function statusForCode(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** Human titles for problem+json `title`; the `detail` carries the specifics. */
export const ERROR_TITLES: Record<ErrorCode, string> = {
  validation_failed: "Validation failed",
  malformed_json: "Malformed JSON body",
  idempotency_key_required: "Idempotency-Key header required",
  unknown_tier: "Unknown tier",
  asset_not_supported: "Asset not supported on this network",
  network_not_allowed: "Network not allowed for this merchant",
  payment_required: "Payment required",
  receipt_invalid: "Receipt invalid",
  quota_exhausted: "Receipt quota exhausted",
  merchant_auth_required: "Merchant authentication required",
  invalid_merchant_secret: "Invalid merchant secret",
  forbidden: "Forbidden",
  payout_change_requires_step_up: "Payout change requires owner step-up",
  payment_authorization_invalid: "Payment authorization invalid",
  payment_authorization_expired: "Payment authorization expired",
  admin_auth_required: "Operator sign-in required",
  invalid_credentials: "Invalid credentials",
  metrics_auth_required: "Metrics credentials required",
  admin_role_forbidden: "Your role may not do this",
  csrf_check_failed: "Same-origin proof missing or wrong",
  not_found: "Not found",
  merchant_not_found: "Merchant not found",
  quote_not_found: "Quote not found",
  gateway_route_not_found: "Gateway route not found",
  method_not_allowed: "Method not allowed",
  conflict: "Conflict",
  idempotency_key_in_use: "Idempotency key in use",
  payout_wallet_missing: "Merchant has no EVM payout wallet",
  settlement_version_unavailable: "Settlement version unavailable on this network",
  quote_already_paid: "Quote already paid by another transaction",
  payload_too_large: "Payload too large",
  unsupported_media_type: "Unsupported media type",
  idempotency_key_reused: "Idempotency key reused with a different request",
  tx_reverted: "Transaction reverted",
  payment_log_missing: "No matching Payment log from the splitter",
  payment_log_ambiguous: "More than one matching Payment log",
  payment_payer_mismatch: "Payment payer does not match the quote",
  payment_merchant_mismatch: "Payment merchant does not match the quote",
  payment_token_mismatch: "Payment token does not match the quote",
  payment_amount_mismatch: "Payment amounts do not match the quote",
  payment_after_quote_expiry: "Payment mined after the quote expired",
  order_not_found: "Bridge order not found",
  provider_not_found: "Bridge provider not found",
  order_request_mismatch: "Order was issued for a different request",
  order_already_used: "Order already used",
  payment_already_used: "Payment already used",
  payment_in_flight: "Payment is being used by another request",
  payment_pending: "Payment not confirmed yet",
  payment_after_order_expiry: "Payment mined after the order expired",
  solana_settlement_disabled: "Solana settlement is disabled",
  x402_payload_malformed: "Malformed x402 payment header",
  x402_payment_invalid: "x402 payment invalid",
  x402_settlement_failed: "x402 settlement failed",
  listing_not_found: "Listing not found",
  listing_limit_reached: "Listing limit reached",
  listing_not_pending: "Listing is not waiting for a decision",
  listing_revision_stale: "Listing revision is not the one waiting for a decision",
  listing_not_approved: "Listing is not public",
  listing_not_suspended: "Listing is not suspended",
  payment_ip_creator_mismatch: "Payment does not pay the quoted ip creator",
  identity_required: "Identity signature required",
  identity_nonce_invalid: "Nonce expired, unknown or already used",
  identity_header_malformed: "Identity header malformed",
  identity_signature_invalid: "Identity signature invalid",
  identity_seat_missing: "No seat for this public key",
  identity_seat_outdated: "Seat was reserved for an older agreement",
  identity_store_unavailable: "Nonce store unavailable",
  solana_rpc_unavailable: "Solana RPC unavailable",
  receipt_revoked: "Receipt suspended or revoked: its payment is no longer on the chain",
  revocation_feed_stale: "Revocation feed unreachable for longer than the staleness window",
  rate_limited: "Too many requests",
  login_locked: "Too many failed sign-ins",
  internal_error: "Internal error",
  upstream_failed: "Upstream failed",
  service_unavailable: "Service unavailable",
  price_feed_stale: "Price feed stale",
  chain_unavailable: "Chain RPC unavailable",
  jwks_unavailable: "Receipt keys unavailable",
  upstream_timeout: "Upstream timed out",
  upstream_refused: "Upstream refused the bridge's credentials",
  bridge_store_unavailable: "Bridge order store unavailable",
  facilitator_busy: "The facilitator has too many requests in flight; retry later",
  quota_store_reset: "Quota counters were lost; paid calls resume after an operator check",
  // Hostile input.
  malformed_body: "Request body could not be read",
  body_required: "Request body required",
  malformed_request: "Malformed HTTP request",
  request_timeout: "Request timed out",
  request_header_too_large: "Request headers too large",
  // Operator actions.
  service_paused: "Paused by the operator: no new sales for now",
  already_paused: "That scope is already paused",
  onchain_pause_unavailable: "No pauser key is configured: the splitters cannot be paused on chain from here",
  not_paused: "That scope is not paused",
  config_already_initialized: "The configuration of this network is already recorded",
  network_not_configured: "That network is not configured on this service",
  webhook_event_not_found: "No webhook event with this id",
  partner_not_found: "No partner is registered with this wallet",
  merchant_suspended: "This merchant is suspended by the operator: no new sales",
  merchant_already_suspended: "This merchant is already suspended",
  merchant_not_suspended: "This merchant is not suspended",
  last_owner_required: "That would leave no active owner",
  admin_not_found: "No operator account with this id",
  invitation_invalid: "Invitation unknown, expired, already used or revoked",
  test_paid_call_unavailable: "Test paid calls are not enabled on this deployment",
  test_paid_call_live_merchant: "Test paid calls are for test-mode merchants only",
  test_paid_call_chain_not_local: "Test paid calls run on local chains only",
  test_paid_call_in_progress: "A test paid call for this merchant is already running",
  test_paid_call_failed: "The test paid call did not complete",

  // User sessions.
  user_auth_required: "User sign-in required",
  signin_message_malformed: "Sign-in message is not an EIP-4361 message",
  signin_message_rejected: "Sign-in message is for another domain or URI, expired, or not valid yet",
  signin_nonce_invalid: "Sign-in nonce unknown, expired or already used",
  signin_signature_invalid: "Sign-in signature does not match the wallet",
  wallet_already_linked: "That wallet belongs to another account",
  wallet_not_linked: "That address is not one of your account's wallets",

  network_not_halted: "That network is not halted",
  // Operator dashboards.
  failed_payment_not_found: "No failed payment with this id",
  payout_change_nonce_invalid: "Payout-change challenge unknown, expired, replaced or already used",
  payout_change_signature_invalid: "Payout-change signature is not the current payout wallet's",
  payout_change_mismatch: "Payout change does not match its challenge",
  payout_change_signer_unavailable: "No current payout wallet (EVM or Solana) can sign the payout change",
  audit_cut_in_future: "The cut point is in the future or past the newest audit event",
  audit_cut_empty: "No audit event lies between the latest checkpoint and the cut point",
  audit_prune_leaves_nothing: "A prune must leave at least the newest audit event in the trail",
  audit_export_mismatch: "That export does not match the audit events it would prune",
};

/** RFC 9457 problem details as Tollgate sends them (DESIGN.md §7). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id?: string;
  errors?: FieldError[];
}

export const PROBLEM_CONTENT_TYPE = "application/problem+json";
/** Problem `type` is a URI reference to the code's entry on the API's own error page (RFC 9457 §3.1.1). */
export const PROBLEM_TYPE_BASE = "/docs/errors#";

/** An error with a stable code; `cause` keeps the underlying failure for logs, never for clients. */
export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** RFC 9457 extension members the problem carries (a challenge's fields, `replayable`); never the standard ones. */
  readonly extensions: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    detail?: string,
    options: {
      cause?: unknown;
      errors?: FieldError[];
      headers?: Record<string, string>;
      extensions?: Record<string, unknown>;
    } = {},
  ) {
    super(detail ?? ERROR_TITLES[code], { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.headers = options.headers;
    this.extensions = options.extensions;
  }

  toProblem(requestId?: string): Problem {
    const internal = this.status >= 500;
    return {
      type: `${PROBLEM_TYPE_BASE}${this.code}`,
      title: ERROR_TITLES[this.code],
      status: this.status,
      // 5xx details never reach clients (DESIGN.md §7).
      detail: internal ? ERROR_TITLES[this.code] : this.message,
      code: this.code,
      ...(requestId ? { request_id: requestId } : {}),
      ...(this.errors && this.errors.length > 0 ? { errors: this.errors } : {}),
    };
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}
