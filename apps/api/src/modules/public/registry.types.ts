import { ECONOMICS_PROFILE_IDS } from "@tollgate/shared";
import { z } from "zod";
import { ZAvailabilityStatus, ZRefusal } from "./payment-capabilities.types";

const ZUsedBy = z
  .enum(["quote", "bridge", "none"])
  .describe("quote: /v1/quote; bridge: the legacy bridge and /api/b2b/*; none: deployed but never used");
const ZProfile = z.enum(ECONOMICS_PROFILE_IDS);

export const ZSplitterRegistry = z.object({
  contract: z.literal("splitter-registry-v1"),
  generated_at: z.string(),
  deployments: z.array(
    z.object({
      key: z.string().describe("`{chain_id}:{version}`: registries are keyed by (chain id, version)"),
      chain_id: z.number().int(),
      network: z.string(),
      caip2: z.string(),
      version: z.enum(["1.2", "1.4"]),
      address: z.string(),
      deployment_block: z.number().int(),
      status: ZAvailabilityStatus,
      refusal: ZRefusal,
      native_coin: z.string(),
      token_allow_list: z.array(
        z.object({ symbol: z.string(), address: z.string(), decimals: z.number().int() }),
      ),
      routes: z.array(
        z.object({
          route: z.string(),
          route_id: z.string().nullable(),
          functions: z.array(z.string()),
          economics_profile: ZProfile,
          model: z.string(),
          split_bps: z.object({
            merchant: z.number().int(),
            treasury: z.number().int(),
            ip_creator: z.number().int(),
          }),
          used_by: ZUsedBy,
          status: ZAvailabilityStatus,
          note: z.string(),
        }),
      ),
    }),
  ),
});

export const ZRegistryCoverage = z.object({
  contract: z.literal("splitter-coverage-v1"),
  generated_at: z.string(),
  networks: z.array(z.string()),
  versions: z.array(z.string()),
  assets: z.array(z.string()),
  economics_profiles: z.array(ZProfile),
  rows: z.array(
    z.object({
      network: z.string(),
      chain_id: z.number().int(),
      version: z.enum(["1.2", "1.4"]),
      asset: z.string(),
      economics_profile: ZProfile,
      used_by: ZUsedBy,
      status: ZAvailabilityStatus,
      refusal: ZRefusal,
      note: z.string().nullable(),
    }),
  ),
});
