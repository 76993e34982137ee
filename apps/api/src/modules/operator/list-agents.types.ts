import { z } from "zod";
import { ZCsvExport } from "../../http/csv-export";
import { exportablePage } from "../../http/list-query";

/** Sort keys of the agents list: the payer address, on `settlements_payer_idx` (decision 0077). */
export const AGENT_SORT_KEYS = ["address"] as const;

export const ZListAgentsRequest = z
  .strictObject({
    ...exportablePage(AGENT_SORT_KEYS, { sort: "address (ascending)", jsonPage: 25 }),
  })
  .prefault({});

export const ZAgentsPage = z.object({
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
  total: z
    .number()
    .int()
    .describe("exact count of the payers seen (orphaned settlements excluded), on every page"),
});

export const ZListAgentsResponse = z.union([ZAgentsPage, ZCsvExport]);
