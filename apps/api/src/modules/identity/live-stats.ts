import { gatedOperation, gatedRoute } from "./gated-endpoint";
import { liveStats } from "./live-stats-service";

const window = {
  type: "array",
  items: {
    type: "object",
    required: ["network", "chain_id", "token", "settlements", "volume", "active_agents"],
    properties: {
      network: { type: "string" },
      chain_id: { type: "integer" },
      token: { type: "string", description: "token address; the zero address for native" },
      settlements: { type: "integer" },
      volume: { type: "string", description: "sum of totals in the token's atomic units" },
      active_agents: { type: "integer", description: "distinct payers" },
    },
  },
};

/** GET /api/live-stats (issue 12; SPEC §4.4): live network figures, behind the identity gate. */
export const liveStatsRoute = gatedRoute(
  "/api/live-stats",
  gatedOperation({
    operationId: "liveStats",
    summary: "Live network figures",
    description: "Settlements, volume and active agents per network and token over the last hour and day.",
    schema: {
      type: "object",
      required: ["generated_at", "windows"],
      properties: {
        generated_at: { type: "string", format: "date-time" },
        windows: { type: "object", properties: { last_hour: window, last_day: window } },
      },
    },
  }),
  (deps) => liveStats(deps),
);
