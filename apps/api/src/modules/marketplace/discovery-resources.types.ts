import { queryInteger } from "@tollgate/shared";
import { z } from "zod";

/** Bazaar page sizes (x402-wire e.5): bounded so one request cannot ask for the whole table. */
export const DISCOVERY_MAX_LIMIT = 100;
export const DISCOVERY_DEFAULT_LIMIT = 20;
/** Offsets past this are refused: deep pages of an offset scan are a cost, not a use. */
export const DISCOVERY_MAX_OFFSET = 100_000;

/** Query of GET /discovery/resources; unknown parameters are refused (a repeated one is not a string). */
export const ZDiscoveryResourcesQuery = z.strictObject({
  type: z.enum(["http"]).optional(),
  limit: queryInteger({ min: 1, max: DISCOVERY_MAX_LIMIT }).default(DISCOVERY_DEFAULT_LIMIT),
  offset: queryInteger({ min: 0, max: DISCOVERY_MAX_OFFSET }).default(0),
});

const ZAccept = z.object({
  scheme: z.string(),
  network: z.string(),
  amount: z.string().describe("atomic units of asset"),
  asset: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int(),
  extra: z.record(z.string(), z.unknown()),
});

export const ZDiscoveryResources = z.object({
  x402Version: z.literal(2),
  items: z.array(
    z.object({
      resource: z.string().describe("absolute URL: the hosted gateway /g/<slug> plus the listing's route"),
      type: z.literal("http"),
      x402Version: z.literal(2),
      accepts: z.array(ZAccept),
      lastUpdated: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      extensions: z.object({ bazaar: z.record(z.string(), z.unknown()) }),
    }),
  ),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});

export const ZWellKnownX402 = z.object({
  version: z.literal(1),
  resources: z.array(z.string()),
  ownershipProofs: z.array(z.string()),
});
