import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GateChallenge, NETWORKS } from "@tollgate/shared";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChains, startTestChains } from "../../test/chains";
import { bearer, registrationBody, startTestApi, type TestApi } from "../../test/harness";
import { decide, newListing, registerMerchant, signInOperator } from "./listings-testing";

type Accept = {
  scheme: string;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  extra: Record<string, unknown>;
};
type Item = {
  resource: string;
  type: string;
  x402Version: number;
  accepts: Accept[];
  metadata: Record<string, unknown>;
  extensions: { bazaar: { info: { input: Record<string, unknown> }; schema: Record<string, unknown> } };
};
type Page = {
  x402Version: number;
  items: Item[];
  pagination: { limit: number; offset: number; total: number };
};

/** The discovery exports, checked against the live 402 of every resource they name. */
describe("discovery exports (/discovery/resources, /.well-known/x402)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-discovery-"));
  let chains: LocalChains;
  let api: TestApi;
  let origin: Server;
  let clockOffsetMs = 0;
  const expireCaches = () => {
    clockOffsetMs += 61_000;
  };

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(
      "pglite",
      { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1", RATE_LIMIT_PUBLIC_PER_MINUTE: "200" },
      { clock: { now: () => new Date(Date.now() + clockOffsetMs) } },
    );
    const upstream = express();
    upstream.all("/{*rest}", (_req, res) => {
      res.json({ ok: true });
    });
    origin = upstream.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => origin.once("listening", resolve));
    const upstreamUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/api`;
    const operator = await signInOperator(api);

    // Two merchants with a hosted gateway, at different prices; listings with and without schemas and methods.
    for (const [slug, price] of [
      ["acme-search", "0.02"],
      ["bolt-compute", "1.5"],
    ] as const) {
      const created = await api.call("POST", "/v1/merchants", {
        body: registrationBody({ network_mode: "test", tiers: { standard: price } }),
      });
      const merchant = {
        id: String(created.json.merchant_id),
        secret: String(created.json.secret),
        name: slug,
      };
      const gateway = await api.call("PUT", `/v1/merchants/${merchant.id}/gateway`, {
        headers: bearer(merchant.secret),
        body: { slug, upstream_url: upstreamUrl },
      });
      expect(gateway.status, gateway.text).toBe(200);
      const get = await newListing(api, merchant, {
        route: "/v1/search",
        method: "GET",
        input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        output_schema: { type: "object", properties: { results: { type: "array" } } },
      });
      const post = await newListing(api, merchant, {
        route: "/v1/run",
        method: "POST",
        category: "compute",
        title: "Run a job",
        input_schema: { type: "object", properties: { job: { type: "string" } } },
      });
      for (const id of [get, post]) expect((await decide(api, operator, id, "approve")).status).toBe(200);
      // Pending and rejected listings never show.
      await newListing(api, merchant, { route: "/v1/pending", title: "Pending one" });
      const rejected = await newListing(api, merchant, { route: "/v1/rejected", title: "Rejected one" });
      expect((await decide(api, operator, rejected, "reject")).status).toBe(200);
    }
    // An approved listing of a merchant without a hosted gateway is in the feed but not in the exports.
    const noGateway = await registerMerchant(api, "No Gateway Co");
    const own = await newListing(api, noGateway, { route: "/v1/own", base_url: "https://api.example.com" });
    expect((await decide(api, operator, own, "approve")).status).toBe(200);
    expireCaches();
  }, 120_000);

  afterAll(async () => {
    origin?.closeAllConnections();
    origin?.close();
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const page = async (query = "") => {
    const response = await api.call("GET", `/discovery/resources${query}`);
    expect(response.status, response.text).toBe(200);
    return response.json as unknown as Page;
  };

  it("happy: every exported resource answers 402 with the same price, asset, network and payTo, and a bazaar extension", async () => {
    const all = await page("?limit=100");
    expect(all.x402Version).toBe(2);
    expect(all.pagination).toEqual({ limit: 100, offset: 0, total: 4 });
    expect(all.items.map((item) => new URL(item.resource).pathname).sort()).toEqual([
      "/g/acme-search/v1/run",
      "/g/acme-search/v1/search",
      "/g/bolt-compute/v1/run",
      "/g/bolt-compute/v1/search",
    ]);
    const amoy = chains.chains[0]!;
    for (const item of all.items) {
      expect(item.resource.startsWith(`${api.baseUrl}/g/`)).toBe(true);
      expect(item.accepts).toHaveLength(1);
      const exported = item.accepts[0]!;
      expect(exported.scheme).toBe("aifp-1");
      expect(exported.network).toBe(NETWORKS.amoy.caip2);
      const method = String(item.metadata.method);
      expect(item.extensions.bazaar.info.input).toMatchObject({ type: "http", method });

      const live = await fetch(item.resource, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect(live.status, item.resource).toBe(402);
      const body = (await live.json()) as GateChallenge;
      const header = live.headers.get("payment-required");
      expect(header, item.resource).toBeTruthy();
      const required = JSON.parse(Buffer.from(header!, "base64").toString("utf8")) as {
        x402Version: number;
        resource: { url: string };
        accepts: Accept[];
        extensions?: { bazaar?: unknown };
      };
      expect(required.x402Version).toBe(2);
      expect(required.resource.url).toBe(item.resource);
      // The live 402 adds the x402 rails after the exported `aifp-1` accept (docs/decisions/0089).
      expect(required.accepts[0]).toEqual(item.accepts[0]);
      expect(required.accepts[1]?.scheme).toBe("exact");
      expect(required.extensions?.bazaar).toEqual(item.extensions.bazaar);
      // The AIFP-1 body is the same challenge: its USD unit price is the exported amount in USDC (6 decimals).
      expect(exported.extra.unit_price).toBe(body.unit_price);
      expect(BigInt(exported.amount)).toBe(BigInt(Math.round(Number(body.unit_price) * 1_000_000)));
      expect(exported.extra.resource).toBe(body.resource);

      // And a real quote for that challenge settles on this network, token and splitter.
      const quote = await api.call("POST", "/v1/quote", {
        body: {
          merchant_id: body.merchant_id,
          resource: body.resource,
          tier: body.tier,
          payer: "0x000000000000000000000000000000000000dEaD",
          asset: "USDC",
        },
      });
      expect(quote.status, quote.text).toBe(200);
      expect(quote.json.chain_id).toBe(amoy.chainId);
      const call = quote.json.settlement_call as { to: string };
      expect(call.to.toLowerCase()).toBe(exported.payTo.toLowerCase());
    }
  });

  it("/.well-known/x402 lists the same resources; both exports are cached with an ETag and 304", async () => {
    const all = await page("?limit=100");
    const wellKnown = await api.call("GET", "/.well-known/x402");
    expect(wellKnown.status).toBe(200);
    expect(wellKnown.json).toEqual({
      version: 1,
      resources: all.items.map((item) => item.resource),
      ownershipProofs: [],
    });
    for (const path of ["/.well-known/x402", "/discovery/resources?limit=2"]) {
      const first = await api.call("GET", path);
      expect(first.headers.get("cache-control")).toBe("public, max-age=60");
      const etag = first.headers.get("etag");
      expect(etag).toBeTruthy();
      const again = await api.call("GET", path, { headers: { "if-none-match": etag! } });
      expect(again.status).toBe(304);
    }
  });

  it("pages with limit and offset over a stable order", async () => {
    const all = await page("?limit=100");
    const first = await page("?limit=3&offset=0&type=http");
    const second = await page("?limit=3&offset=3");
    expect(first.items).toHaveLength(3);
    expect(second.items).toHaveLength(1);
    expect(second.pagination).toEqual({ limit: 3, offset: 3, total: 4 });
    expect([...first.items, ...second.items].map((item) => item.resource)).toEqual(
      all.items.map((item) => item.resource),
    );
    expect((await page("?offset=50")).items).toEqual([]);
  });

  it("bad input: 400 problem+json with a stable code, never a 500", async () => {
    for (const query of [
      "?limit=-1",
      "?limit=0",
      `?limit=${10 ** 9}`,
      "?limit=1e3",
      "?offset=abc",
      "?offset=-5",
      "?offset=100001",
      "?type=__proto__",
      "?type=constructor",
      "?type=mcp",
      "?limit=1&limit=2",
      "?__proto__=1",
    ]) {
      const response = await api.call("GET", `/discovery/resources${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type"), query).toContain("application/problem+json");
      expect(response.json.code, query).toBe("validation_failed");
    }
  });
});
