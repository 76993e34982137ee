/**
 * Telemetry shared through Redis (`/api/dashboard/telemetry` with `scope: "cluster"`; docs/operators.md
 * "Telemetry"). Each API process flushes its per-minute deltas every few seconds (and on shutdown) into one hash per
 * minute; the dashboard merges the hashes of its window. Nothing is written per request.
 *
 * Invariants:
 * - One flush is one Lua script: all of its increments land, or none. A batch carries an id that the script marks
 *   first, so a batch retried after a lost reply is never counted twice; a failed batch is kept and retried as is.
 * - Field = `kind|label|class-or-bucket`, each part percent-encoded: a label cannot forge a separator.
 * - Hashes expire with the dashboard window (retention), measured from the injected clock.
 */
import type { Redis } from "ioredis";
import type { Clock } from "../../infra/clock";
import type { Logger } from "../../infra/logger";
import { BUCKETS } from "./latency-histogram";
import {
  labelIn,
  type PendingDeltas,
  type Series,
  type SeriesSummary,
  type SlotSeries,
  STATUS_CLASSES,
  seriesAt,
  summarize,
  type Telemetry,
  windowMinutesOf,
} from "./telemetry";

const FLUSH_SCRIPT = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
local i = 2
for k = 2, #KEYS do
  local ttl = ARGV[i]
  local n = tonumber(ARGV[i + 1])
  i = i + 2
  for j = 1, n do
    local f, v = ARGV[i], ARGV[i + 1]
    i = i + 2
    if string.sub(f, 1, 2) == 'x|' then
      local cur = redis.call('HGET', KEYS[k], f)
      if (not cur) or tonumber(v) > tonumber(cur) then redis.call('HSET', KEYS[k], f, v) end
    else
      redis.call('HINCRBY', KEYS[k], f, v)
    end
  end
  redis.call('EXPIRE', KEYS[k], ttl)
end
return 1`;

const KINDS = { routes: "r", merchants: "m" } as const;
const field = (...parts: string[]) => parts.map(encodeURIComponent).join("|");

/** The hash fields of one minute's series: counts per status class, per latency bucket, and the max (µs). */
function fieldsOf(slot: SlotSeries): string[] {
  const args: string[] = [];
  for (const kind of ["routes", "merchants"] as const) {
    for (const [label, series] of slot[kind]) {
      series.byClass.forEach((count, index) => {
        if (count > 0) args.push(field("c", KINDS[kind], label, STATUS_CLASSES[index]!), String(count));
      });
      series.latency.counts.forEach((count, index) => {
        if (count > 0) args.push(field("b", KINDS[kind], label, String(index)), String(count));
      });
      if (series.latency.total > 0) {
        args.push(field("x", KINDS[kind], label), String(Math.ceil(series.latency.maxMs * 1000)));
      }
    }
  }
  return args;
}

export interface TelemetryShareOptions {
  /** Key prefix; tests isolate themselves with a unique one. */
  prefix: string;
  flushMs: number;
}

export class TelemetryShare {
  private failed: { id: string; deltas: PendingDeltas } | undefined;
  private sequence = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly telemetry: Telemetry,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: TelemetryShareOptions,
  ) {}

  /** Flushes every `flushMs` until {@link stop}. */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
  }

  /** Stops the timer and flushes once more (shutdown). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Sends the pending deltas; true when nothing is left unsent. Failures are logged and kept for the next flush. */
  async flush(): Promise<boolean> {
    // One flush at a time: a caller arriving during one waits for it, then sends what came since.
    while (this.running) await this.running;
    let ok = true;
    this.running = this.flushOnce()
      .catch((error: unknown) => {
        ok = false;
        this.log.warn({ err: error }, "telemetry flush to redis failed; deltas kept for the next flush");
      })
      .finally(() => {
        this.running = undefined;
      });
    await this.running;
    return ok;
  }

  private async flushOnce(): Promise<void> {
    if (this.failed) {
      await this.send(this.failed.id, this.failed.deltas);
      this.failed = undefined;
    }
    const deltas = this.telemetry.takePending();
    if (deltas.size === 0) return;
    const id = `${this.telemetry.instanceId}:${++this.sequence}`;
    this.failed = { id, deltas };
    await this.send(id, deltas);
    this.failed = undefined;
  }

  private async send(id: string, deltas: PendingDeltas): Promise<void> {
    const nowSeconds = Math.floor(this.clock.now().getTime() / 1000);
    const retentionSeconds = this.telemetry.retentionMinutes * 60;
    const keys = [`${this.options.prefix}flush:${id}`];
    const args = [String(retentionSeconds)];
    for (const [minute, slot] of deltas) {
      // The hash lives until its minute leaves the longest window; a minute already out of it is dropped.
      const ttl = (minute + 1) * 60 + retentionSeconds - nowSeconds;
      if (ttl <= 0) continue;
      const fields = fieldsOf(slot);
      keys.push(`${this.options.prefix}${minute}`);
      args.push(String(ttl), String(fields.length / 2), ...fields);
    }
    if (keys.length === 1) return;
    await this.redis.eval(FLUSH_SCRIPT, keys.length, ...keys, ...args);
  }

  /** The cluster's figures over the window, merged from every process's flushed minutes. */
  async read(windowMinutes: number): Promise<{
    from: Date;
    to: Date;
    routes: Map<string, SeriesSummary>;
    merchants: Map<string, SeriesSummary>;
  }> {
    const now = this.clock.now();
    const { first, last } = windowMinutesOf(now, windowMinutes, this.telemetry.retentionMinutes);
    const pipeline = this.redis.pipeline();
    for (let minute = first; minute <= last; minute++) pipeline.hgetall(`${this.options.prefix}${minute}`);
    const replies = (await pipeline.exec()) ?? [];
    const merged: SlotSeries = { routes: new Map(), merchants: new Map() };
    const caps = this.telemetry.caps;
    for (const [error, hash] of replies) {
      if (error) throw error;
      const minute: SlotSeries = { routes: new Map(), merchants: new Map() };
      for (const [name, value] of Object.entries(hash as Record<string, string>))
        addField(minute, name, value);
      // Caps hold on the merged view too: labels past them count under `other`.
      for (const kind of ["routes", "merchants"] as const) {
        const cap = kind === "routes" ? caps.maxRoutes : caps.maxMerchants;
        for (const [label, series] of minute[kind]) {
          seriesAt(merged[kind], labelIn(merged[kind], label, cap)).add(series);
        }
      }
    }
    return {
      from: new Date(first * 60_000),
      to: now,
      routes: summarize(merged.routes),
      merchants: summarize(merged.merchants),
    };
  }
}

const decode = (value: string): string | undefined => {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
};

/** Adds one hash field into `slot`; a field this code did not write is ignored. */
function addField(slot: SlotSeries, name: string, value: string): void {
  if (!/^[0-9]{1,15}$/.test(value)) return;
  const count = Number(value);
  const [type, kindCode, rawLabel, part, ...rest] = name.split("|");
  const kind = kindCode === "r" ? "routes" : kindCode === "m" ? "merchants" : undefined;
  const label = rawLabel === undefined ? undefined : decode(rawLabel);
  if (!kind || label === undefined || rest.length > 0) return;
  if (type === "x" && part === undefined) {
    const series = seriesAt(slot[kind], label);
    series.latency.maxMs = Math.max(series.latency.maxMs, count / 1000);
  } else if (type === "c" && part !== undefined) {
    const index = STATUS_CLASSES.indexOf(part as (typeof STATUS_CLASSES)[number]);
    if (index >= 0) seriesAt(slot[kind], label).byClass[index]! += count;
  } else if (type === "b" && part !== undefined && /^[0-9]{1,2}$/.test(part) && Number(part) < BUCKETS) {
    const series: Series = seriesAt(slot[kind], label);
    series.latency.counts[Number(part)]! += count;
    series.latency.total += count;
  }
}
