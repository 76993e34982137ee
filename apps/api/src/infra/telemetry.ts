/**
 * Request telemetry per process (issue 10, `/api/dashboard/telemetry`; docs/decisions.md "Operator dashboards").
 *
 * Invariants:
 * - Recording is in memory and O(1): no I/O, no allocation once a series exists in the current minute.
 * - Cardinality is bounded: routes are labelled by their template (`GET /v1/quotes/:id`, never the raw path), and at
 *   most `maxRoutes` route and `maxMerchants` merchant series exist per minute; the rest count under `other`.
 * - Time is cut into one-minute slots kept for `retentionMinutes`; a read merges the slots of its window.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "./clock";
import { LatencyHistogram } from "./latency-histogram";

export const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export const OTHER_SERIES = "other";

export interface TelemetryOptions {
  retentionMinutes: number;
  maxRoutes: number;
  maxMerchants: number;
}

export const DEFAULT_TELEMETRY: TelemetryOptions = {
  retentionMinutes: 60,
  maxRoutes: 400,
  maxMerchants: 1000,
};

class Series {
  readonly latency = new LatencyHistogram();
  readonly byClass = new Uint32Array(STATUS_CLASSES.length);

  record(status: number, durationMs: number): void {
    const index = Math.min(Math.max(Math.floor(status / 100) - 1, 0), STATUS_CLASSES.length - 1);
    this.byClass[index]! += 1;
    this.latency.record(durationMs);
  }

  add(other: Series): void {
    for (let i = 0; i < this.byClass.length; i++) this.byClass[i]! += other.byClass[i]!;
    this.latency.add(other.latency);
  }
}

interface Slot {
  minute: number;
  routes: Map<string, Series>;
  merchants: Map<string, Series>;
}

export interface RequestSample {
  /** `METHOD /template`. */
  route: string;
  merchantId: string | undefined;
  status: number;
  durationMs: number;
}

export interface SeriesSummary {
  requests: number;
  by_status_class: Record<StatusClass, number>;
  /** Share of 5xx answers (server errors); 4xx are the client's and counted apart. */
  error_rate: number | null;
  client_error_rate: number | null;
  latency_ms: {
    p50: number | null;
    p90: number | null;
    p95: number | null;
    p99: number | null;
    max: number | null;
  };
}

function seriesIn(map: Map<string, Series>, key: string, cap: number): Series {
  let series = map.get(key);
  if (series) return series;
  const label = map.size >= cap ? OTHER_SERIES : key;
  series = map.get(label);
  if (!series) {
    series = new Series();
    map.set(label, series);
  }
  return series;
}

const round = (value: number | null) => (value === null ? null : Math.round(value * 1000) / 1000);

function summary(series: Series): SeriesSummary {
  const requests = series.latency.total;
  const byClass = Object.fromEntries(
    STATUS_CLASSES.map((name, index) => [name, series.byClass[index]!]),
  ) as Record<StatusClass, number>;
  const latency = series.latency;
  return {
    requests,
    by_status_class: byClass,
    error_rate: requests === 0 ? null : byClass["5xx"] / requests,
    client_error_rate: requests === 0 ? null : byClass["4xx"] / requests,
    latency_ms: {
      p50: round(latency.percentile(0.5)),
      p90: round(latency.percentile(0.9)),
      p95: round(latency.percentile(0.95)),
      p99: round(latency.percentile(0.99)),
      max: requests === 0 ? null : round(latency.maxMs),
    },
  };
}

export class Telemetry {
  private readonly slots: Slot[] = [];
  readonly startedAt: Date;
  /** Names this process's figures: each API process counts its own (docs/decisions.md). */
  readonly instanceId = randomBytes(6).toString("hex");

  constructor(
    private readonly clock: Clock,
    private readonly options: TelemetryOptions = DEFAULT_TELEMETRY,
  ) {
    this.startedAt = clock.now();
  }

  get retentionMinutes(): number {
    return this.options.retentionMinutes;
  }

  record(sample: RequestSample): void {
    const slot = this.currentSlot();
    seriesIn(slot.routes, sample.route, this.options.maxRoutes).record(sample.status, sample.durationMs);
    if (sample.merchantId !== undefined) {
      seriesIn(slot.merchants, sample.merchantId, this.options.maxMerchants).record(
        sample.status,
        sample.durationMs,
      );
    }
  }

  /** Merged summaries of the last `windowMinutes` minutes (the current, partial minute included). */
  read(windowMinutes: number): {
    from: Date;
    to: Date;
    routes: Map<string, SeriesSummary>;
    merchants: Map<string, SeriesSummary>;
  } {
    const now = this.clock.now();
    const minute = Math.floor(now.getTime() / 60_000);
    const first = minute - Math.min(windowMinutes, this.options.retentionMinutes) + 1;
    const routes = new Map<string, Series>();
    const merchants = new Map<string, Series>();
    for (const slot of this.slots) {
      if (slot.minute < first || slot.minute > minute) continue;
      for (const [target, source] of [
        [routes, slot.routes],
        [merchants, slot.merchants],
      ] as const) {
        for (const [key, series] of source) {
          let merged = target.get(key);
          if (!merged) {
            merged = new Series();
            target.set(key, merged);
          }
          merged.add(series);
        }
      }
    }
    const summarize = (map: Map<string, Series>) =>
      new Map([...map].map(([key, series]) => [key, summary(series)] as const));
    return {
      from: new Date(first * 60_000),
      to: now,
      routes: summarize(routes),
      merchants: summarize(merchants),
    };
  }

  private currentSlot(): Slot {
    const minute = Math.floor(this.clock.now().getTime() / 60_000);
    const last = this.slots[this.slots.length - 1];
    if (last && last.minute === minute) return last;
    // A clock that stepped back writes into the newest slot rather than reordering history.
    if (last && last.minute > minute) return last;
    const slot: Slot = { minute, routes: new Map(), merchants: new Map() };
    this.slots.push(slot);
    while (this.slots.length > 0 && this.slots[0]!.minute <= minute - this.options.retentionMinutes) {
      this.slots.shift();
    }
    return slot;
  }
}
