/** The field-level codes of a `validation_failed` problem (DESIGN.md §7): its `errors[]` entries. */
/**
 * Field-level codes carried in `errors[].code` of a `validation_failed` problem.
 * They name the rule that failed (SPEC §2.1, §2.2), so clients can react without parsing prose.
 */
export const FIELD_ERROR_CODES = [
  "required",
  "invalid_type",
  "unknown_field",
  "too_short",
  "too_long",
  "invalid_value",
  "invalid_format",
  "invalid_characters",
  "reserved_name",
  "invalid_evm_address",
  "evm_checksum_mismatch",
  "burn_address",
  "evm_alias_mismatch",
  "invalid_solana_address",
  "invalid_near_account",
  "invalid_aptos_address",
  "pay_to_empty",
  "settlement_chain_mode_mismatch",
  "network_mode_immutable",
  "invalid_tier_name",
  "invalid_usd_amount",
  "too_many_tiers",
  "invalid_webhook_url",
  "webhook_url_not_https",
  "webhook_url_private_host",
  "invalid_url",
  "url_not_https",
  "url_private_host",
] as const;
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

export interface FieldError {
  /** Dotted path of the failing field, e.g. `pay_to.evm`; empty for the whole body. */
  path: string;
  code: FieldErrorCode;
  message: string;
}
