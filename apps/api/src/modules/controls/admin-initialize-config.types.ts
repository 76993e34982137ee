import { ZNetworkName } from "@tollgate/shared";
import { z } from "zod";

export const ZInitializeConfigRequest = z.strictObject({
  networks: z
    .array(ZNetworkName)
    .min(1)
    .max(64)
    .refine((list) => new Set(list).size === list.length, "each network once")
    .optional()
    .describe("networks to record; default every network deployed on this service"),
});

export const ZNetworkConfigView = z.object({
  network: ZNetworkName,
  chain_id: z.number().int(),
  treasury: z.string(),
  splitters: z.record(z.string(), z.string()).describe("splitter address by version (v1.2, v1.4)"),
  confirmations: z.number().int(),
  source: z.record(z.string(), z.unknown()),
  initialized_by: z.string(),
  initialized_at: z.string(),
});

export const ZInitializeConfigResponse = z.object({ configs: z.array(ZNetworkConfigView) });
