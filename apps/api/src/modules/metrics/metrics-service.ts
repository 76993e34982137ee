/**
 * Operational figures for GET /api/metrics: per-network head, indexed block, lag, cursor age and halt
 * (from the indexer cursors and `network_halts`), settlements by state and webhook deliveries by outcome. Read from
 * the database, so any API replica reports the same figures whichever process runs the indexer. A halted follower
 * keeps recording the head, so the lag of a halted network grows (docs/decisions/0059-network-halts-resume-and-operations.md).
 */
import { type Database, indexerCursors, settlements, webhookDeliveries } from "@tollgate/db";
import { count } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import type { ChainHealth } from "../chains";
import { listOpenHalts } from "../controls";
import type { ProcessMonitor } from "./process-monitor";

export interface MetricsServiceDeps {
  db: { db: Database };
  clock: Clock;
  /** The answering process's own figures; absent: not reported. */
  processMonitor?: Pick<ProcessMonitor, "read">;
  /** This process's last chain checks; absent: not reported. */
  readiness?: { chainHealth: Pick<ChainHealth, "states"> };
}

export interface MetricFamily {
  name: string;
  help: string;
  /** Every figure here is a gauge (a count read from the database is not monotonic per scrape). */
  type: "gauge";
  /** Label pairs (values unescaped) and the sample value. */
  samples: { labels: Record<string, string>; value: number | bigint }[];
}

const networkLabels = (row: { network: string; chainId: number }) => ({
  network: row.network,
  chain_id: String(row.chainId),
});

/** Reads every figure in one round of queries. */
export async function collectMetrics(deps: MetricsServiceDeps): Promise<MetricFamily[]> {
  const db = deps.db.db;
  const [cursors, byState, byOutcome, halts] = await Promise.all([
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
    listOpenHalts(db),
  ]);
  const haltedChains = new Set(halts.map((halt) => halt.chain_id));
  // Every network with a cursor or an open halt: 1 while halted, so an alert can fire on the value alone.
  const haltSamples = new Map(
    cursors.map((c) => [c.chainId, { labels: networkLabels(c), value: haltedChains.has(c.chainId) ? 1 : 0 }]),
  );
  for (const halt of halts) {
    haltSamples.set(halt.chain_id, {
      labels: networkLabels({ network: halt.network, chainId: halt.chain_id }),
      value: 1,
    });
  }
  const nowMs = deps.clock.now().getTime();
  return [
    ...processFamilies(deps.processMonitor),
    ...networkFamilies(deps.readiness?.chainHealth),
    {
      name: "tollgate_indexer_head_block",
      help: "Latest head block reported by the network's RPC",
      type: "gauge",
      samples: cursors.flatMap((c) =>
        c.headNumber === null ? [] : [{ labels: networkLabels(c), value: c.headNumber }],
      ),
    },
    {
      name: "tollgate_indexer_indexed_block",
      help: "Last block whose logs are committed",
      type: "gauge",
      samples: cursors.map((c) => ({ labels: networkLabels(c), value: c.blockNumber })),
    },
    {
      name: "tollgate_indexer_lag_blocks",
      help: "Head minus indexed block (a halted network's head is still recorded, so its lag grows)",
      type: "gauge",
      samples: cursors.map((c) => {
        const lag = (c.headNumber ?? c.blockNumber) - c.blockNumber;
        return { labels: networkLabels(c), value: lag > 0n ? lag : 0n };
      }),
    },
    {
      name: "tollgate_indexer_halted",
      help: "1 while the indexer halted the network (a reorg deeper than maxReorgDepth) until an operator resumes it",
      type: "gauge",
      samples: [...haltSamples.values()],
    },
    {
      name: "tollgate_indexer_cursor_age_seconds",
      help: "Seconds since the indexer last updated the network's cursor",
      type: "gauge",
      samples: cursors.map((c) => ({
        labels: networkLabels(c),
        value: Math.max(0, Math.round((nowMs - c.updatedAt.getTime()) / 1000)),
      })),
    },
    {
      name: "tollgate_settlements",
      help: "Settlements by state",
      type: "gauge",
      samples: byState.map((s) => ({ labels: { ...networkLabels(s), state: s.state }, value: s.n })),
    },
    {
      name: "tollgate_webhook_deliveries",
      help: "Webhook deliveries by outcome (pending, delivered, failed, dead)",
      type: "gauge",
      samples: byOutcome.map((d) => ({ labels: { outcome: d.status }, value: d.n })),
    },
  ];
}

/**
 * Per process, unlike the rest (read from the database): each replica reports its own event-loop delay since its
 * previous scrape. RSS and heap come with prom-client's default process metrics (./prometheus.ts).
 */
function processFamilies(monitor: MetricsServiceDeps["processMonitor"]): MetricFamily[] {
  if (!monitor) return [];
  const figures = monitor.read();
  const seconds = (ms: number) => ms / 1000;
  return [
    {
      name: "nodejs_eventloop_delay_seconds",
      help: "Event-loop delay of the answering process since its previous scrape (quantile 1 = max)",
      type: "gauge",
      samples: [
        { labels: { quantile: "0.5" }, value: seconds(figures.loopDelayMs.p50) },
        { labels: { quantile: "0.99" }, value: seconds(figures.loopDelayMs.p99) },
        { labels: { quantile: "1" }, value: seconds(figures.loopDelayMs.max) },
      ],
    },
  ];
}

/** Per process too: each replica's own last chain checks (docs/decisions/0055-chain-checks-and-readiness.md). */
function networkFamilies(health: Pick<ChainHealth, "states"> | undefined): MetricFamily[] {
  if (!health) return [];
  const states = health.states();
  return [
    {
      name: "tollgate_network_available",
      help: "1 while the network's last chain check passed (chain id, code, signer role, head age), else 0",
      type: "gauge",
      samples: states.map((state) => ({ labels: networkLabels(state), value: state.available ? 1 : 0 })),
    },
    {
      name: "tollgate_network_head_age_seconds",
      help: "Age of the network's head block at the last chain check",
      type: "gauge",
      samples: states.flatMap((state) =>
        state.headAgeSeconds === undefined
          ? []
          : [{ labels: networkLabels(state), value: state.headAgeSeconds }],
      ),
    },
  ];
}
