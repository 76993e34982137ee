// The gate middleware over real loopback HTTP (refunds). The Tollgate API is the stand-in from ./testing (JWKS and
// GET /v1/merchants/{id}); the real API is exercised by the e2e suite in apps/api later.
import { QUOTA_REMAINING_HEADER } from "@tollgate/shared/aifp";
import express from "express";
import { describe, expect, it } from "vitest";
import { refundOnFailure } from "./gate";
import { closers, get, merchantApp, receiptFor, useFakeTollgateApi } from "./gate-test-app";
import { MemoryQuotaStore } from "./quota";
import { listen } from "./testing";

useFakeTollgateApi();

describe("gate: refunds", () => {
  it("gives the unit back when the handler fails with a 5xx", async () => {
    let fail = true;
    const app = await merchantApp({}, (_req, res) => {
      if (fail) res.status(502).json({ error: "upstream down" });
      else res.json({ ok: true });
    });
    const { token } = await receiptFor({ quota: 2 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(502);
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(502);
    fail = false;
    // both units are still there
    expect((await get(`${app.url}/v1/search`, token)).response.headers.get(QUOTA_REMAINING_HEADER)).toBe("1");
    expect((await get(`${app.url}/v1/search`, token)).response.headers.get(QUOTA_REMAINING_HEADER)).toBe("0");
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(402);
  });

  it("gives the unit back when the handler throws (Express answers 500)", async () => {
    const app = await merchantApp({}, () => {
      throw new Error("boom");
    });
    const { token } = await receiptFor({ quota: 1 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(500);
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(500); // not 402: the unit came back
  });

  it("keeps the unit when refundOnServerError is off", async () => {
    const app = await merchantApp({ refundOnServerError: false }, (_req, res) => {
      res.status(500).end();
    });
    const { token } = await receiptFor({ quota: 1 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(500);
    expect((await get(`${app.url}/v1/search`, token)).body).toMatchObject({ code: "quota_exhausted" });
  });

  it("refundOnFailure gives the unit back exactly once, even if the response is then a 5xx", async () => {
    const outcomes: boolean[] = [];
    const store = new MemoryQuotaStore();
    const app = await merchantApp({ quotaStore: store }, async (req, res) => {
      if (req.query.fail !== "1") {
        res.json({ ok: true });
        return;
      }
      outcomes.push(await refundOnFailure(res), await refundOnFailure(res));
      res.status(503).json({ error: "try later" });
    });
    const { token, claims } = await receiptFor({ quota: 3 });
    expect((await get(`${app.url}/v1/search`, token)).status).toBe(200); // used 1
    const failed = await get(`${app.url}/v1/search?fail=1`, token); // used 2, refunded to 1
    expect(failed.status).toBe(503);
    expect(failed.response.headers.get(QUOTA_REMAINING_HEADER)).toBe("1");
    expect(outcomes).toEqual([true, false]);
    // exactly one unit is used now: two more fit, three would not (a double refund would leave room for 3)
    expect(await store.consume(claims.jti, claims.quota, 3, claims.exp)).toEqual({ ok: false, remaining: 2 });
    expect(await store.consume(claims.jti, claims.quota, 2, claims.exp)).toEqual({ ok: true, remaining: 0 });
  });

  it("refundOnFailure on an unpaid response resolves false", async () => {
    const app = express();
    const seen: boolean[] = [];
    app.get("/free", async (_req, res) => {
      seen.push(await refundOnFailure(res));
      res.end();
    });
    const server = await listen(app);
    closers.push(server.close);
    await fetch(`${server.url}/free`);
    expect(seen).toEqual([false]);
  });
});
