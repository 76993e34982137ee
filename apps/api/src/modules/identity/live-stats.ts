import { z } from "zod";
import type { IdentityModuleDeps } from "./deps";
import { defineGatedEndpoint } from "./gated-endpoint";
import { liveStats } from "./live-stats-service";

const ZLiveWindow = z.array(
  z.object({
    network: z.string(),
    chain_id: z.number().int(),
    token: z.string().describe("token address; the zero address for native"),
    settlements: z.number().int(),
    volume: z.string().describe("sum of totals in the token's atomic units"),
    active_agents: z.number().int().describe("distinct payers"),
  }),
);

export const ZLiveStats = z.object({
  generated_at: z.iso.datetime(),
  windows: z.object({ last_hour: ZLiveWindow, last_day: ZLiveWindow }),
});

/** GET /api/live-stats (SPEC §4.4): live network figures, behind the identity gate. */
export const liveStatsEndpoint = defineGatedEndpoint({
  path: "/api/live-stats",
  operationId: "liveStats",
  summary: "Live network figures",
  description: "Settlements, volume and active agents per network and token over the last hour and day.",
  response: ZLiveStats,
  produce: (deps: IdentityModuleDeps) => liveStats(deps),
});
