/**
 * Merchant input rules (SPEC §2.1, §2.2) as zod schemas shared by the API and the console.
 * Outputs are normalised: `pay_to.evm` checksummed, `polygon`/network aliases folded into `evm`,
 * Aptos as lowercase 32-byte hex, names trimmed, tier prices in micro-USD.
 */
import bs58 from "bs58";
import { getAddress } from "viem";
import { z } from "zod";
import type { FieldErrorCode } from "./field-errors";
import { formatUsd, parseUsd } from "./money";
import { NETWORK_MODES, ZNetworkName } from "./networks";
import { ZWebhookUrl } from "./outbound-url";
import { isReservedKeyName, safeText } from "./text";

/** Adds an issue that carries our field code; see `fieldErrorsFromZod`. */
function fail(ctx: z.RefinementCtx, fieldCode: FieldErrorCode, message: string, path?: PropertyKey[]) {
  ctx.addIssue({ code: "custom", message, params: { fieldCode }, ...(path ? { path } : {}) });
}

// ---------------------------------------------------------------------------------------------- name

/**
 * SPEC §2.1: 3 to 80 characters (Unicode code points) after trimming; the shared refused-character rule (text.ts:
 * C0, DEL, C1, lone surrogates, U+FFFE/U+FFFF) with field code `invalid_characters`.
 */
export const ZMerchantName = safeText({ trim: true, min: 3, max: 80, label: "name" });

// ---------------------------------------------------------------------------------------------- pay_to

/** Addresses that destroy funds; refused as payout wallets (SPEC §2.2). Lowercase. */
export const BURN_ADDRESSES: readonly string[] = [
  "0x0000000000000000000000000000000000000000",
  "0x0000000000000000000000000000000000000001",
  "0x000000000000000000000000000000000000dead",
  "0xdead000000000000000042069420694206942069",
];

export type EvmAddress = `0x${string}`;

/** Validates one EVM address; returns its checksummed form or the rule it broke. */
export function checkEvmAddress(
  value: string,
): { ok: true; address: EvmAddress } | { ok: false; code: FieldErrorCode; message: string } {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
    return { ok: false, code: "invalid_evm_address", message: "must be 0x followed by 40 hex digits" };
  }
  // Burn addresses are refused whatever their case, before the checksum is looked at.
  if (BURN_ADDRESSES.includes(value.toLowerCase())) {
    return { ok: false, code: "burn_address", message: "burn addresses cannot receive payouts" };
  }
  const body = value.slice(2);
  const checksummed = getAddress(value.toLowerCase());
  // EIP-55 applies when the address mixes cases; all-lower and all-upper carry no checksum.
  const mixedCase = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixedCase && value !== checksummed) {
    return {
      ok: false,
      code: "evm_checksum_mismatch",
      message: "mixed-case address fails its EIP-55 checksum",
    };
  }
  return { ok: true, address: checksummed };
}

const ZEvmAddressField = z.string().transform((value, ctx) => {
  const result = checkEvmAddress(value);
  if (result.ok) return result.address;
  fail(ctx, result.code, result.message);
  return z.NEVER;
});

/** A Solana address: base58 of exactly 32 bytes, canonically encoded. */
export function isSolanaAddress(value: string): boolean {
  let decoded: Uint8Array;
  try {
    decoded = bs58.decode(value);
  } catch {
    return false;
  }
  return decoded.length === 32 && bs58.encode(decoded) === value;
}

const ZSolanaAddress = z.string().transform((value, ctx) => {
  if (isSolanaAddress(value)) return value;
  fail(ctx, "invalid_solana_address", "must be the base58 encoding of a 32-byte public key");
  return z.NEVER;
});

/** NEAR account id: 2-64 chars, lowercase alphanumeric segments joined by single `.`, `_` or `-`. */
export const NEAR_ACCOUNT_PATTERN = /^(?:[a-z\d]+[-_.])*[a-z\d]+$/;
const ZNearAccount = z.string().transform((value, ctx) => {
  if (value.length >= 2 && value.length <= 64 && NEAR_ACCOUNT_PATTERN.test(value)) return value;
  fail(
    ctx,
    "invalid_near_account",
    "must be 2 to 64 lowercase letters and digits in segments separated by one of '.', '_', '-'",
  );
  return z.NEVER;
});

/** Aptos: `0x` + 64 hex (not all zero) or the special `0x1`..`0xf`; stored as lowercase 32-byte hex. */
const ZAptosAddress = z.string().transform((value, ctx) => {
  if (/^0x[0-9a-fA-F]{64}$/.test(value) && !/^0x0{64}$/.test(value)) return value.toLowerCase();
  if (/^0x[1-9a-fA-F]$/.test(value)) return `0x${value.slice(2).toLowerCase().padStart(64, "0")}`;
  fail(ctx, "invalid_aptos_address", "must be 0x + 64 hex digits (not all zero) or 0x1 to 0xf");
  return z.NEVER;
});

/** Keys that name the one shared EVM address: the canonical `evm`, the legacy `polygon`, and network aliases. */
/** The alias keys are a wire fact of SPEC §2.2 (the original three networks), not the runtime network list. */
export const EVM_ALIAS_KEYS = ["polygon", "base", "amoy"] as const;
const PAY_TO_FAMILIES = ["evm", "solana", "near", "aptos"] as const;
export type PayToFamily = (typeof PAY_TO_FAMILIES)[number];

/** Normalised payout destinations as stored and shown. */
export interface PayTo {
  evm?: EvmAddress;
  solana?: string;
  near?: string;
  aptos?: string;
}

/** A patch: `null` clears that family, an absent key keeps it. */
export type PayToPatch = { [K in PayToFamily]?: PayTo[K] | null };

const payToShape = {
  evm: ZEvmAddressField.nullable().optional(),
  ...(Object.fromEntries(
    EVM_ALIAS_KEYS.map((key) => [key, ZEvmAddressField.nullable().optional()]),
  ) as Record<(typeof EVM_ALIAS_KEYS)[number], z.ZodOptional<z.ZodNullable<typeof ZEvmAddressField>>>),
  solana: ZSolanaAddress.nullable().optional(),
  near: ZNearAccount.nullable().optional(),
  aptos: ZAptosAddress.nullable().optional(),
};

/** Parses the raw object into a patch, folding the EVM aliases into `evm` (SPEC §2.2 rule on `polygon`). */
const ZPayToRaw = z.strictObject(payToShape).transform((raw, ctx): PayToPatch => {
  const patch: PayToPatch = {};
  const evmKeys = (["evm", ...EVM_ALIAS_KEYS] as const).filter((key) => raw[key] !== undefined);
  const firstKey = evmKeys[0];
  if (firstKey !== undefined) {
    const first = raw[firstKey];
    for (const key of evmKeys.slice(1)) {
      if (raw[key] !== first) {
        fail(ctx, "evm_alias_mismatch", `${key} must name the same address as ${firstKey}`, [key]);
        return z.NEVER;
      }
    }
    patch.evm = first ?? null;
  }
  for (const family of ["solana", "near", "aptos"] as const) {
    if (raw[family] !== undefined) patch[family] = raw[family];
  }
  return patch;
});

function configuredFamilies(payTo: PayTo): PayToFamily[] {
  return PAY_TO_FAMILIES.filter((family) => payTo[family] !== undefined);
}

/** Applies a patch: omitted families are preserved, `null` clears only that family (SPEC §2.2 rule 3). */
export function mergePayTo(current: PayTo, patch: PayToPatch): PayTo {
  const next: PayTo = { ...current };
  for (const family of PAY_TO_FAMILIES) {
    const value = patch[family];
    if (value === null) delete next[family];
    else if (value !== undefined) (next as Record<PayToFamily, string>)[family] = value;
  }
  return next;
}

export function hasPayoutFamily(payTo: PayTo): boolean {
  return configuredFamilies(payTo).length > 0;
}

/** Registration: at least one valid family (SPEC §2.2 rule 1); `null` means absent. */
export const ZPayTo = ZPayToRaw.transform((patch, ctx): PayTo => {
  const payTo = mergePayTo({}, patch);
  if (hasPayoutFamily(payTo)) return payTo;
  fail(ctx, "pay_to_empty", "at least one payout family (evm, solana, near, aptos) is required");
  return z.NEVER;
});

/** Update: families to set or clear; the merged result is checked by the service. */
export const ZPayToPatch = ZPayToRaw;

// ---------------------------------------------------------------------------------------------- settlement

export const SETTLEMENT_VERSIONS = ["1.2", "1.4"] as const;
export type SettlementVersion = (typeof SETTLEMENT_VERSIONS)[number];
export const ZSettlementVersion = z.enum(SETTLEMENT_VERSIONS);
export const ZNetworkMode = z.enum(NETWORK_MODES);
/** Membership in the runtime network list and the mode are the merchant service's checks (decision 0057). */
export const ZSettlementChain = ZNetworkName;

// ---------------------------------------------------------------------------------------------- tiers

export const TIER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const MAX_TIERS = 16;
/** Upper bound for one unit's price, a guard against typos that would quote absurd amounts. */
export const MAX_UNIT_PRICE_MICRO_USD = 1_000_000_000n; // 1,000 USD

/** One tier name where it is stored (a gateway route's tier): the tier pattern, and never a reserved key name. */
export const ZTierName = z.string().transform((name, ctx) => {
  if (isReservedKeyName(name)) fail(ctx, "reserved_name", `${name} is reserved and cannot name a tier`);
  else if (!TIER_NAME_PATTERN.test(name))
    fail(ctx, "invalid_tier_name", "tier names are 1-32 chars: a-z first, then a-z, 0-9, '_' or '-'");
  else return name;
  return z.NEVER;
});

/** Default tiers given at registration when none are sent (docs/merchants.md). */
export const DEFAULT_TIERS_MICRO_USD: Readonly<Record<string, bigint>> = {
  standard: 1_000n, // 0.001 USD
  premium: 10_000n, // 0.01 USD
};

/** A unit price in USD as a decimal string ("0.001"), parsed exactly into micro-USD. */
export const ZUsdAmount = z.string().transform((value, ctx) => {
  let micro: bigint;
  try {
    micro = parseUsd(value);
  } catch {
    fail(
      ctx,
      "invalid_usd_amount",
      'must be a USD decimal string with at most 6 decimal places, e.g. "0.001"',
    );
    return z.NEVER;
  }
  if (micro <= 0n || micro > MAX_UNIT_PRICE_MICRO_USD) {
    fail(
      ctx,
      "invalid_usd_amount",
      `must be more than 0 and at most ${formatUsd(MAX_UNIT_PRICE_MICRO_USD)} USD`,
    );
    return z.NEVER;
  }
  return micro;
});

/**
 * Tier names are checked on the raw object's own keys, before `z.record` copies the entries: the copy is a
 * plain assignment, so a JSON `"__proto__"` key would otherwise vanish silently instead of being refused.
 */
function withTierNamesChecked<T extends z.ZodType>(record: T) {
  // `raw` is typed as the record's input so the schema's input type (forms, OpenAPI) stays a record.
  return z.preprocess((raw: z.input<T>, ctx) => {
    if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
      checkTierNames(raw as Record<string, unknown>, ctx);
    }
    return raw;
  }, record);
}

function checkTierNames(tiers: Record<string, unknown>, ctx: z.RefinementCtx): boolean {
  let ok = true;
  for (const name of Object.keys(tiers)) {
    if (isReservedKeyName(name)) {
      // `constructor` matches the pattern but would be found on every plain object's prototype.
      fail(ctx, "reserved_name", `${name} is reserved and cannot name a tier`, [name]);
      ok = false;
    } else if (!TIER_NAME_PATTERN.test(name)) {
      fail(ctx, "invalid_tier_name", "tier names are 1-32 chars: a-z first, then a-z, 0-9, '_' or '-'", [
        name,
      ]);
      ok = false;
    }
  }
  if (Object.keys(tiers).length > MAX_TIERS) {
    fail(ctx, "too_many_tiers", `at most ${MAX_TIERS} tiers`);
    ok = false;
  }
  return ok;
}

/** Tiers at registration: name -> unit price in USD; at least one. */
export const ZTiers = withTierNamesChecked(
  z.record(z.string(), ZUsdAmount).transform((tiers, ctx) => {
    if (Object.keys(tiers).length === 0) {
      fail(ctx, "too_short", "at least one tier is required");
      return z.NEVER;
    }
    return tiers;
  }),
);

/** Tier changes: name -> price sets it, name -> null removes it. */
export const ZTiersPatch = withTierNamesChecked(z.record(z.string(), ZUsdAmount.nullable()));

export function formatTiers(tiers: Readonly<Record<string, bigint>>): Record<string, string> {
  return Object.fromEntries(Object.entries(tiers).map(([name, micro]) => [name, formatUsd(micro)]));
}

// ---------------------------------------------------------------------------------------------- requests

/**
 * POST /v1/merchants (SPEC §4.1). Unknown keys are refused. Whether `settlement_chain` is in the runtime
 * network list and of the chosen mode is the merchant service's check (decision 0057).
 */
export const ZRegisterMerchantInput = z.strictObject({
  name: ZMerchantName,
  pay_to: ZPayTo,
  settlement_version: ZSettlementVersion.optional(),
  network_mode: ZNetworkMode.optional(),
  settlement_chain: ZSettlementChain.optional(),
  tiers: ZTiers.optional(),
  webhook_url: ZWebhookUrl.nullable().optional(),
});
export type RegisterMerchantInput = z.output<typeof ZRegisterMerchantInput>;

/**
 * PATCH /v1/merchants/{id}: every field optional; omitted fields keep their value. `network_mode` is
 * accepted only when it equals the current mode (checked by the service, which knows it).
 */
export const ZUpdateMerchantInput = z.strictObject({
  name: ZMerchantName.optional(),
  pay_to: ZPayToPatch.optional(),
  settlement_version: ZSettlementVersion.optional(),
  network_mode: ZNetworkMode.optional(),
  settlement_chain: ZSettlementChain.optional(),
  tiers: ZTiersPatch.optional(),
  webhook_url: ZWebhookUrl.nullable().optional(),
});
export type UpdateMerchantInput = z.output<typeof ZUpdateMerchantInput>;

// ---------------------------------------------------------------------------------------------- views

export const ZPayToView = z.object({
  evm: z.string().optional(),
  solana: z.string().optional(),
  near: z.string().optional(),
  aptos: z.string().optional(),
});

/** What anyone may read about a merchant (no secrets, no webhook URL). */
export const ZMerchantPublicView = z.object({
  merchant_id: z.string(),
  name: z.string(),
  pay_to: ZPayToView,
  settlement_version: ZSettlementVersion,
  network_mode: ZNetworkMode,
  settlement_chain: ZSettlementChain,
  tiers: z.record(z.string(), z.string()).describe("unit price per tier, USD decimal strings"),
});
export type MerchantPublicView = z.infer<typeof ZMerchantPublicView>;

/** What the merchant itself sees when authenticated. */
export const ZMerchantPrivateView = ZMerchantPublicView.extend({
  webhook_url: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  secret_rotated_at: z.string(),
  suspension: z
    .object({ suspended_at: z.string(), reason: z.string() })
    .nullable()
    .describe(
      "set while an operator has suspended the merchant: no new quotes or challenges, listings not public (decision 0071)",
    ),
});
export type MerchantPrivateView = z.infer<typeof ZMerchantPrivateView>;
