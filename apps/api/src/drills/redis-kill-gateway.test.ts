/**
 * Drill: Redis is SIGKILLed under the hosted gateway `/g`, whose receipts' quota counters live in Redis
 * (packages/gate RedisQuotaStore). Redis runs as production should (append-only, fsync always) and comes back on
 * the same port; the API is never restarted. What must hold (docs/operations.md, "Redis is down"):
 * - quotas fail closed: while Redis is down a paid call is 503 problem+json `service_unavailable` (never 500) and
 *   never reaches the upstream;
 * - quotas never over-grant: a receipt of N units is delivered N calls in all, across the outage;
 * - no unit is lost: a unit taken for a call the upstream did not deliver, while Redis died, is given back once
 *   Redis returns;
 * - service resumes when Redis returns, without a restart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GateChallenge, QUOTA_REMAINING_HEADER, RECEIPT_HEADER } from "@tollgate/shared";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChains, payChallenge, startTestChains } from "../test/chains";
import { bearer, registrationBody, startTestApi, type TestApi } from "../test/harness";
import { REDIS_SERVER, startThrowawayRedis, type ThrowawayRedis } from "../test/throwaway-redis";

if (!REDIS_SERVER) console.log("Redis kill drill (gateway) skipped: no redis-server binary");

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!REDIS_SERVER)("drill: Redis killed under the hosted gateway's quotas", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-redis-gateway-"));
  let chains: LocalChains;
  let redis: ThrowawayRedis;
  let api: TestApi;
  let agent: Agent;
  let origin: Server;
  /** What the origin does with the next request; it always answers 200 after. */
  let nextRequest: (() => Promise<number>) | undefined;
  let delivered = 0;
  /** A receipt only used to see what the gateway's quota store sees (its units are not counted below). */
  let probe: string;

  const gw = (token?: string) =>
    fetch(`${api.baseUrl}/g/drill/search`, { headers: token ? { [RECEIPT_HEADER]: token } : {} });
  const receipt = async (): Promise<{ token: string; units: number }> => {
    const challenge = (await (await gw()).json()) as GateChallenge;
    const paid = await payChallenge(agent, challenge);
    return { token: paid.receipt, units: paid.quote.units };
  };
  /** True once a paid call is refused for want of the quota store; false once it is served. */
  const storeDown = async () => (await gw(probe)).status === 503;
  const killRedis = async () => {
    await redis.kill();
    await until(storeDown, "the gateway to see Redis gone");
  };
  const restartRedis = async () => {
    await redis.start();
    await until(async () => !(await storeDown()), "the gateway to reconnect to Redis");
  };
  const expectQuotaStoreDown = async (response: Response) => {
    expect(response.status, await response.clone().text()).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { code: string }).code).toBe("service_unavailable");
  };
  /** Spends the receipt until it is refused; returns how many calls were delivered. */
  const spendAll = async (token: string): Promise<number> => {
    let served = 0;
    for (;;) {
      const response = await gw(token);
      if (response.status !== 200) {
        expect(response.status, await response.clone().text()).toBe(402);
        expect(((await response.json()) as GateChallenge).code).toBe("quota_exhausted");
        return served;
      }
      served += 1;
      if (served > 100) throw new Error("the receipt never ran out");
    }
  };

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    redis = await startThrowawayRedis({ durable: true });
    api = await startTestApi("pglite", {
      DATA_DIR: dataDir,
      CONFIRMATIONS_AMOY: "1",
      GATEWAY_TIMEOUT_MS: "10000",
      REDIS_URL: redis.url,
    });
    agent = agentOn(chains.chains[0]!, 12);
    const app = express();
    app.all("/{*rest}", async (_req, res) => {
      const step = nextRequest;
      nextRequest = undefined;
      const status = step ? await step() : 200;
      if (status === 200) delivered += 1;
      res.status(status).json({ ok: status === 200 });
    });
    origin = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => origin.once("listening", resolve));
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.02" } }),
    });
    const route = await api.call("PUT", `/v1/merchants/${created.json.merchant_id}/gateway`, {
      headers: bearer(String(created.json.secret)),
      body: { slug: "drill", upstream_url: `http://127.0.0.1:${(origin.address() as AddressInfo).port}/api` },
    });
    expect(route.status, route.text).toBe(200);
    probe = (await receipt()).token;
  }, 120_000);

  afterAll(async () => {
    origin?.closeAllConnections();
    origin?.close();
    await api?.close();
    await redis?.dispose();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("fails closed with 503 while Redis is down, resumes after, and delivers exactly the units bought", async () => {
    const { token, units } = await receipt();
    expect(units).toBeGreaterThan(1);
    const first = await gw(token);
    expect(first.status).toBe(200);
    expect(first.headers.get(QUOTA_REMAINING_HEADER)).toBe(String(units - 1));

    await killRedis();
    const before = delivered;
    for (let i = 0; i < 3; i++) await expectQuotaStoreDown(await gw(token));
    expect(delivered).toBe(before);

    await restartRedis();
    // The counter survived the kill: exactly the units left, then 402 quota_exhausted.
    expect(await spendAll(token)).toBe(units - 1);
  });

  it("gives back the unit of a call the upstream failed while Redis was dying, once Redis returns", async () => {
    const { token, units } = await receipt();
    // The origin kills Redis, waits until the gateway's quota store has lost it, then fails (500 -> 502).
    nextRequest = async () => {
      await killRedis();
      return 500;
    };
    const failed = await gw(token);
    expect(failed.status, await failed.clone().text()).toBe(502);
    await expectQuotaStoreDown(await gw(token));

    await restartRedis();
    // Every unit bought is delivered: the failed call's unit came back, and no more than that.
    expect(await spendAll(token)).toBe(units);
  });
});
