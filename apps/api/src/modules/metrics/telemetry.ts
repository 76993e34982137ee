/**
 * Request telemetry per process (`/api/dashboard/telemetry`; docs/decisions/0028-operator-dashboards.md).
 *
 * Invariants:
 * - Recording is in memory and O(1): no I/O, no allocation once a series exists in the current minute.
 * - Cardinality is bounded: routes are labelled by their template (`GET /v1/quotes/:id`, never the raw path), and at
 *   most `maxRoutes` route and `maxMerchants` merchant series exist per minute; the rest count under `other`.
 * - Time is cut into one-minute slots kept for `retentionMinutes`; a read merges the slots of its window.
 * - With `shared`, the same samples also accumulate as per-minute deltas that telemetry-redis.ts flushes to Redis.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../infra/clock";
import { LatencyHistogram } from "./latency-histogram";

export const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export const OTHER_SERIES = "other";

export interface TelemetryOptions {
  retentionMinutes: number;
  maxRoutes: number;
  maxMerchants: number;
  /** Also keep the deltas not yet flushed to the shared store (set when Redis shares the figures). */
  shared?: boolean;
}

export const DEFAULT_TELEMETRY: TelemetryOptions = {
  retentionMinutes: 60,
  maxRoutes: 400,
  maxMerchants: 1000,
};

export class Series {
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

export interface SlotSeries {
  routes: Map<string, Series>;
  merchants: Map<string, Series>;
}

interface Slot extends SlotSeries {
  minute: number;
}

/** Deltas per minute, not yet in the shared store. */
export type PendingDeltas = Map<number, SlotSeries>;

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

/** The label `key` counts under in `map`: itself, or `other` once `cap` labels exist. */
export function labelIn(map: Map<string, Series>, key: string, cap: number): string {
  return map.has(key) || map.size < cap ? key : OTHER_SERIES;
}

export function seriesAt(map: Map<string, Series>, label: string): Series {
  let series = map.get(label);
  if (!series) {
    series = new Series();
    map.set(label, series);
  }
  return series;
}

/** Adds every series of `source` into `target` under the same labels. */
export function mergeInto(target: SlotSeries, source: SlotSeries): void {
  for (const [key, series] of source.routes) seriesAt(target.routes, key).add(series);
  for (const [key, series] of source.merchants) seriesAt(target.merchants, key).add(series);
}

const round = (value: number | null) => (value === null ? null : Math.round(value * 1000) / 1000);

export function summary(series: Series): SeriesSummary {
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

export const summarize = (map: Map<string, Series>) =>
  new Map([...map].map(([key, series]) => [key, summary(series)] as const));

/** The minutes a read of `windowMinutes` covers: `first` to `last`, the current minute included. */
export function windowMinutesOf(now: Date, windowMinutes: number, retentionMinutes: number) {
  const last = Math.floor(now.getTime() / 60_000);
  return { first: last - Math.min(windowMinutes, retentionMinutes) + 1, last };
}

export class Telemetry {
  private readonly slots: Slot[] = [];
  private pending: PendingDeltas = new Map();
  readonly startedAt: Date;
  /** Names this process's figures: each API process counts its own (docs/decisions/0028-operator-dashboards.md). */
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

  get caps(): { maxRoutes: number; maxMerchants: number } {
    return { maxRoutes: this.options.maxRoutes, maxMerchants: this.options.maxMerchants };
  }

  record(sample: RequestSample): void {
    const slot = this.currentSlot();
    const pending = this.options.shared ? this.pendingSlot(slot.minute) : undefined;
    const route = labelIn(slot.routes, sample.route, this.options.maxRoutes);
    seriesAt(slot.routes, route).record(sample.status, sample.durationMs);
    if (pending) seriesAt(pending.routes, route).record(sample.status, sample.durationMs);
    if (sample.merchantId !== undefined) {
      const merchant = labelIn(slot.merchants, sample.merchantId, this.options.maxMerchants);
      seriesAt(slot.merchants, merchant).record(sample.status, sample.durationMs);
      if (pending) seriesAt(pending.merchants, merchant).record(sample.status, sample.durationMs);
    }
  }

  /** Hands over the deltas not yet shared; the caller owns them until they are flushed. */
  takePending(): PendingDeltas {
    const taken = this.pending;
    this.pending = new Map();
    return taken;
  }

  get pendingMinutes(): number {
    return this.pending.size;
  }

  private pendingSlot(minute: number): SlotSeries {
    let slot = this.pending.get(minute);
    if (!slot) {
      slot = { routes: new Map(), merchants: new Map() };
      this.pending.set(minute, slot);
    }
    return slot;
  }

  /** Merged summaries of the last `windowMinutes` minutes (the current, partial minute included). */
  read(windowMinutes: number): {
    from: Date;
    to: Date;
    routes: Map<string, SeriesSummary>;
    merchants: Map<string, SeriesSummary>;
  } {
    const now = this.clock.now();
    const { first, last: minute } = windowMinutesOf(now, windowMinutes, this.options.retentionMinutes);
    const merged: SlotSeries = { routes: new Map(), merchants: new Map() };
    for (const slot of this.slots) {
      if (slot.minute >= first && slot.minute <= minute) mergeInto(merged, slot);
    }
    return {
      from: new Date(first * 60_000),
      to: now,
      routes: summarize(merged.routes),
      merchants: summarize(merged.merchants),
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
