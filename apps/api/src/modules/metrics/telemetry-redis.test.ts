import { once } from "node:events";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../infra/logger";
import { TEST_REDIS_URL } from "../../test/harness";
import { ManualClock } from "../identity/testing";
import { DEFAULT_TELEMETRY, OTHER_SERIES, Telemetry } from "./telemetry";
import { TelemetryShare } from "./telemetry-redis";

const log = createLogger("silent");
const shared = { ...DEFAULT_TELEMETRY, shared: true };
let prefixes = 0;
const uniquePrefix = () => `test:telemetry:${process.pid}:${Date.now()}:${++prefixes}:`;
const sample = (route: string, status: number, durationMs: number, merchantId?: string) => ({
  route,
  status,
  durationMs,
  merchantId,
});

describe("telemetry share without Redis", () => {
  it("error: a flush to an unreachable Redis fails, is logged and keeps the deltas", async () => {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as { port: number }).port;
    server.close();
    const redis = new Redis(`redis://127.0.0.1:${port}`, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    redis.on("error", () => {});
    try {
      const clock = new ManualClock();
      const telemetry = new Telemetry(clock, shared);
      const share = new TelemetryShare(redis, telemetry, clock, log, {
        prefix: uniquePrefix(),
        flushMs: 5000,
      });
      telemetry.record(sample("GET /v1/x", 200, 3));
      expect(telemetry.pendingMinutes).toBe(1);
      expect(await share.flush()).toBe(false);
      expect(await share.flush()).toBe(false);
      // The process view is untouched by the failures.
      expect(telemetry.read(15).routes.get("GET /v1/x")!.requests).toBe(1);
    } finally {
      redis.disconnect();
    }
  });

  it("no `shared`: nothing accumulates for a flush", () => {
    const telemetry = new Telemetry(new ManualClock());
    telemetry.record(sample("GET /v1/x", 200, 3));
    expect(telemetry.pendingMinutes).toBe(0);
  });
});

describe.skipIf(!TEST_REDIS_URL)("telemetry share on Redis", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL ?? "", { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  });
  afterAll(() => redis?.disconnect());
  const ready = async (client: Redis) => {
    if (client.status !== "ready") await once(client, "ready");
  };

  it("happy: two processes' minutes merge; percentiles and max are those of the merged buckets", async () => {
    await ready(redis);
    const prefix = uniquePrefix();
    const clock = new ManualClock(new Date("2026-06-01T12:00:30.000Z"));
    const a = new Telemetry(clock, shared);
    const b = new Telemetry(clock, shared);
    const reference = new Telemetry(clock);
    const shareA = new TelemetryShare(redis, a, clock, log, { prefix, flushMs: 5000 });
    const shareB = new TelemetryShare(redis, b, clock, log, { prefix, flushMs: 5000 });
    for (const [target, s] of [
      [a, sample("GET /v1/quotes/:id", 200, 5, "mrch_a")],
      [a, sample("GET /v1/quotes/:id", 503, 40)],
      [b, sample("GET /v1/quotes/:id", 404, 1, "mrch_a")],
      [b, sample("POST /v1/pay", 200, 120, "mrch_b")],
    ] as const) {
      target.record(s);
      reference.record(s);
    }
    clock.advance(2 * 60_000);
    a.record(sample("POST /v1/pay", 200, 7));
    reference.record(sample("POST /v1/pay", 200, 7));
    expect(await shareA.flush()).toBe(true);
    expect(await shareB.flush()).toBe(true);
    const merged = await shareA.read(15);
    const expected = reference.read(15);
    expect(merged.routes).toEqual(expected.routes);
    expect(merged.merchants).toEqual(expected.merchants);
    expect(merged.routes.get("GET /v1/quotes/:id")!.by_status_class).toEqual({
      "1xx": 0,
      "2xx": 1,
      "3xx": 0,
      "4xx": 1,
      "5xx": 1,
    });
    expect((await shareB.read(15)).routes).toEqual(expected.routes);
    // A flush with nothing new adds nothing.
    expect(await shareA.flush()).toBe(true);
    expect((await shareA.read(15)).routes).toEqual(expected.routes);
    // Hashes expire with the window (retention), from the injected clock.
    const ttl = await redis.ttl(`${prefix}${Math.floor(clock.now().getTime() / 60_000)}`);
    expect(ttl).toBeGreaterThan(59 * 60);
    expect(ttl).toBeLessThanOrEqual(61 * 60);
  });

  it("error: a flush while Redis is closed keeps the deltas; a later flush adds them once", async () => {
    const prefix = uniquePrefix();
    const client = new Redis(TEST_REDIS_URL ?? "", { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    client.on("error", () => {});
    try {
      await ready(client);
      // Closed: every command fails at once until it connects again.
      const ended = once(client, "end");
      client.disconnect();
      await ended;
      const clock = new ManualClock();
      const telemetry = new Telemetry(clock, shared);
      const share = new TelemetryShare(client, telemetry, clock, log, { prefix, flushMs: 5000 });
      telemetry.record(sample("GET /v1/x", 200, 3, "mrch_a"));
      expect(await share.flush()).toBe(false);
      telemetry.record(sample("GET /v1/x", 500, 9, "mrch_a"));
      expect(await share.flush()).toBe(false);
      await client.connect();
      await ready(client);
      telemetry.record(sample("GET /v1/x", 200, 1));
      expect(await share.flush()).toBe(true);
      expect(await share.flush()).toBe(true);
      const read = await share.read(15);
      expect(read.routes.get("GET /v1/x")).toMatchObject({
        requests: 3,
        by_status_class: expect.objectContaining({ "2xx": 2, "5xx": 1 }),
      });
      expect(read.merchants.get("mrch_a")!.requests).toBe(2);
    } finally {
      client.disconnect();
    }
  });

  it("error: a batch whose reply was lost after Redis applied it is resent and not counted twice", async () => {
    await ready(redis);
    const prefix = uniquePrefix();
    let loseReplies = 1;
    // Real Redis; only the first reply to the flush script is dropped on its way back.
    const lossy = new Proxy(redis, {
      get(target, name, receiver) {
        if (name !== "eval") return Reflect.get(target, name, receiver);
        return async (...args: Parameters<Redis["eval"]>) => {
          const reply = await target.eval(...args);
          if (loseReplies-- > 0) throw new Error("connection reset before the reply");
          return reply;
        };
      },
    });
    const clock = new ManualClock();
    const telemetry = new Telemetry(clock, shared);
    const share = new TelemetryShare(lossy, telemetry, clock, log, { prefix, flushMs: 5000 });
    telemetry.record(sample("GET /v1/x", 200, 3));
    expect(await share.flush()).toBe(false);
    telemetry.record(sample("GET /v1/x", 200, 4));
    expect(await share.flush()).toBe(true);
    expect((await share.read(15)).routes.get("GET /v1/x")!.requests).toBe(2);
  });

  it("security: labels cannot forge separators, foreign fields are ignored, caps hold when merged", async () => {
    await ready(redis);
    const prefix = uniquePrefix();
    const clock = new ManualClock();
    const options = { retentionMinutes: 60, maxRoutes: 2, maxMerchants: 2, shared: true };
    const a = new Telemetry(clock, options);
    const b = new Telemetry(clock, options);
    const hostile = "GET /a|c|r|x|2xx";
    a.record(sample(hostile, 200, 2, "mrch_|b|r|5"));
    a.record(sample("GET /b", 200, 2));
    b.record(sample("GET /c", 200, 2));
    b.record(sample("GET /d", 200, 2));
    b.record(sample("GET /e", 200, 2));
    await new TelemetryShare(redis, a, clock, log, { prefix, flushMs: 5000 }).flush();
    const shareB = new TelemetryShare(redis, b, clock, log, { prefix, flushMs: 5000 });
    await shareB.flush();
    const key = `${prefix}${Math.floor(clock.now().getTime() / 60_000)}`;
    await redis.hset(
      key,
      "c|r|GET%20%2Fa|9xx",
      "5",
      "b|r|GET%20%2Fb|99",
      "5",
      "c|r|%E0%A4%A|2xx",
      "5",
      "z",
      "x",
    );
    await redis.hset(
      key,
      "c|r|GET%20%2Fb|2xx|extra",
      "5",
      "c|q|GET%20%2Fb|2xx",
      "5",
      "c|r|GET%20%2Fb|2xx",
      "1e3",
    );
    const read = await shareB.read(15);
    expect(read.routes.get(hostile)).toMatchObject({ requests: 1, by_status_class: { "2xx": 1 } });
    expect(read.merchants.get("mrch_|b|r|5")!.requests).toBe(1);
    expect(read.routes.size).toBe(3);
    expect(read.routes.get("GET /b")!.requests).toBe(1);
    expect(read.routes.get(OTHER_SERIES)!.requests).toBe(3);
    expect([...read.routes.values()].reduce((sum, row) => sum + row.requests, 0)).toBe(5);
  });
});
