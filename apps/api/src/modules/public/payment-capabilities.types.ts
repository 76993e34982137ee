import { ERROR_CODES } from "@tollgate/shared";
import { z } from "zod";

export const ZAvailabilityStatus = z
  .enum(["enabled", "paused", "unavailable", "disabled"])
  .describe(
    "enabled: /v1/quote issues a quote; paused: the operator paused the network; unavailable: a dependency is down for now (the quote answers 5xx); disabled: the quote refuses it (4xx)",
  );

export const ZRefusal = z
  .object({
    code: z.enum(ERROR_CODES as [string, ...string[]]),
    status: z.number().int(),
    detail: z.string(),
  })
  .nullable()
  .describe("the problem /v1/quote answers for this combination; null when enabled");

export const ZCoverage = z.object({
  supported: z.boolean(),
  via: z.string().nullable(),
  note: z.string(),
});

export const ZCapabilityAsset = z.object({
  symbol: z.string(),
  native: z.boolean(),
  address: z.string().nullable().describe("token contract (EVM) or mint (Solana); null for the native coin"),
  decimals: z.number().int(),
  status: ZAvailabilityStatus,
});

export const ZCapabilityVersion = z.object({
  version: z.enum(["1.2", "1.4"]),
  splitter: z.string().nullable(),
  status: ZAvailabilityStatus,
  refusal: ZRefusal,
  economics_profile: z.string(),
  assets: z.array(z.object({ symbol: z.string(), status: ZAvailabilityStatus, refusal: ZRefusal })),
});

export const ZChainCapability = z.object({
  network: z.string(),
  family: z.enum(["evm", "solana"]),
  chain_id: z.number().int().nullable(),
  caip2: z.string(),
  mode: z.enum(["live", "test"]),
  status: ZAvailabilityStatus,
  informational: z.boolean().describe("true for Solana: listed, never payable"),
  configured: z.boolean().describe("the network has a deployment on this service"),
  native_symbol: z.string(),
  pause: z.object({ reason: z.string(), paused_at: z.string() }).nullable(),
  halt: z
    .object({ reason: z.string(), halted_at: z.string(), block_number: z.string().nullable() })
    .nullable()
    .describe(
      "set while the indexer halted the network (a reorg deeper than maxReorgDepth): no settlement is recorded there until an operator resumes it",
    ),
  assets: z.array(ZCapabilityAsset),
  settlement_versions: z.array(ZCapabilityVersion),
  coverage: z.object({ payment: ZCoverage, balance_read: ZCoverage, history: ZCoverage }),
});

export const ZPaymentCapabilities = z.object({
  contract: z.literal("payment-capabilities-v1"),
  generated_at: z.string(),
  chains: z.array(ZChainCapability),
});

/** The document's types, inferred from the schemas the endpoint publishes (one definition). */
export type CapabilityAsset = z.infer<typeof ZCapabilityAsset>;
export type CapabilityVersion = z.infer<typeof ZCapabilityVersion>;
export type Coverage = z.infer<typeof ZCoverage>;
export type ChainCapability = z.infer<typeof ZChainCapability>;
export type PaymentCapabilities = z.infer<typeof ZPaymentCapabilities>;
