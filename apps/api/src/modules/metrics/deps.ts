import type { DatabaseHandle } from "@tollgate/db";
import type { Clock } from "../../infra/clock";
import type { Logger } from "../../infra/logger";
import type { AdminAuth } from "../operators";
import type { ProcessMonitor } from "./process-monitor";
import type { ReadinessDeps } from "./readiness-service";
import type { Telemetry } from "./telemetry";
import type { TelemetryShare } from "./telemetry-redis";

/** What the metrics module is handed by the app (docs/architecture.md). */
export interface MetricsDeps {
  /** `/readyz` pings it. */
  db: Pick<DatabaseHandle, "db" | "kind" | "ping">;
  clock: Clock;
  log: Logger;
  adminAuth: AdminAuth;
  /** The scraper's bearer token for `/api/metrics` (METRICS_TOKEN); undefined: operator sessions only. */
  metricsToken: string | undefined;
  /** This process's request counts and latency (per route template and merchant). */
  telemetry: Telemetry;
  /** With Redis: the cluster's figures; undefined without Redis. */
  telemetryShare: TelemetryShare | undefined;
  processMonitor: ProcessMonitor;
  /** What `/readyz` and the network figures of `/api/metrics` read besides the database. */
  readiness: ReadinessDeps;
}
