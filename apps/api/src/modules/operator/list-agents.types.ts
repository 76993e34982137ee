import { queryInteger } from "@tollgate/shared";
import { z } from "zod";

export const ZListAgentsRequest = z
  .strictObject({
    cursor: z.string().max(400).optional().describe("next_cursor of the previous page"),
    limit: queryInteger({ min: 1, max: 100 }).optional().describe("page size, default 25"),
  })
  .prefault({});

export const ZListAgentsResponse = z.object({
  agents: z.array(
    z.object({
      address: z.string(),
      family: z.enum(["evm", "solana"]),
      settlements: z.number().int(),
      merchants_paid: z.number().int(),
      first_seen: z.string().nullable(),
      last_seen: z.string().nullable(),
    }),
  ),
  next_cursor: z.string().nullable(),
});
