import { indexerCursors, settlements, webhookDeliveries } from "@tollgate/db";
import { count } from "drizzle-orm";
import type { PlainRoute } from "../../infra/plain-route";

/** Prometheus label values: backslash, quote and newline escaped (exposition format 0.0.4). */
const label = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/**
 * GET /api/metrics (issue 5): Prometheus text with per-network head, indexed block and lag (from the
 * indexer cursors), settlements by state and webhook deliveries by outcome. Read from the database,
 * so any API replica reports the same figures whichever process runs the indexer.
 */
export const metricsRoute: PlainRoute = {
  method: "get",
  path: "/api/metrics",
  openapi: {
    operationId: "metrics",
    tags: ["system"],
    summary: "Prometheus metrics",
    responses: {
      "200": {
        description: "Prometheus text exposition format 0.0.4",
        content: { "text/plain": { schema: { type: "string" } } },
      },
      "500": { $ref: "#/components/responses/Problem500" },
    },
  },
  register(app, deps) {
    app.get("/api/metrics", async (_req, res, next) => {
      try {
        const db = deps.db.db;
        const [cursors, byState, byOutcome] = await Promise.all([
          db.select().from(indexerCursors),
          db
            .select({
              chainId: settlements.chainId,
              network: settlements.network,
              state: settlements.state,
              n: count(),
            })
            .from(settlements)
            .groupBy(settlements.chainId, settlements.network, settlements.state),
          db
            .select({ status: webhookDeliveries.status, n: count() })
            .from(webhookDeliveries)
            .groupBy(webhookDeliveries.status),
        ]);
        const lines: string[] = [];
        const metric = (
          name: string,
          help: string,
          type: "gauge" | "counter",
          samples: [string, number | bigint][],
        ) => {
          lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
          for (const [labels, value] of samples) lines.push(`${name}${labels} ${value.toString()}`);
        };
        const net = (c: { network: string; chainId: number }) =>
          `network="${label(c.network)}",chain_id="${c.chainId}"`;
        metric(
          "tollgate_indexer_head_block",
          "Latest head block reported by the network's RPC",
          "gauge",
          cursors.filter((c) => c.headNumber !== null).map((c) => [`{${net(c)}}`, c.headNumber as bigint]),
        );
        metric(
          "tollgate_indexer_indexed_block",
          "Last block whose logs are committed",
          "gauge",
          cursors.map((c) => [`{${net(c)}}`, c.blockNumber]),
        );
        metric(
          "tollgate_indexer_lag_blocks",
          "Head minus indexed block",
          "gauge",
          cursors.map((c) => {
            const lag = (c.headNumber ?? c.blockNumber) - c.blockNumber;
            return [`{${net(c)}}`, lag > 0n ? lag : 0n];
          }),
        );
        metric(
          "tollgate_indexer_cursor_age_seconds",
          "Seconds since the indexer last updated the network's cursor",
          "gauge",
          cursors.map((c) => [
            `{${net(c)}}`,
            Math.max(0, Math.round((deps.clock.now().getTime() - c.updatedAt.getTime()) / 1000)),
          ]),
        );
        metric(
          "tollgate_settlements",
          "Settlements by state",
          "gauge",
          byState.map((s) => [`{${net(s)},state="${label(s.state)}"}`, s.n]),
        );
        metric(
          "tollgate_webhook_deliveries",
          "Webhook deliveries by outcome (pending, delivered, failed, dead)",
          "gauge",
          byOutcome.map((d) => [`{outcome="${label(d.status)}"}`, d.n]),
        );
        res.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        res.setHeader("Cache-Control", "no-store");
        res.send(`${lines.join("\n")}\n`);
      } catch (err) {
        next(err);
      }
    });
  },
};
