import { ZNetworkName } from "@tollgate/shared";
import { z } from "zod";
import { ZDay } from "../../http/day-range";

export const ZDashboardFeesRequest = z
  .strictObject({
    from: ZDay.optional().describe("first day included; default 30 days before `to`"),
    to: ZDay.optional().describe("last day included; default today"),
    network: ZNetworkName.optional(),
  })
  // A GET without a query string arrives as no input at all.
  .prefault({});

export const ZDashboardFeesResponse = z.object({
  from: z.string(),
  to: z.string(),
  rows: z.array(
    z.object({
      day: z.string(),
      network: z.string(),
      token: z.string(),
      asset: z.string().nullable().describe("symbol from the deployment; `native` for the chain's coin"),
      splitter_version: z
        .string()
        .describe("stands for the economics profile: profiles are not stored per settlement"),
      settlements: z.number().int(),
      treasury_amount: z.string().describe("base units"),
      ip_creator_amount: z.string().describe("base units"),
      total_amount: z.string().describe("base units"),
    }),
  ),
});
