import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { receipts } from "@tollgate/db";
import { type GateChallenge, QUOTA_REMAINING_HEADER, RECEIPT_HEADER } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import express from "express";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChains, payChallenge, startTestChains } from "../../test/chains";
import { bearer, registrationBody, startTestApi, type TestApi } from "../../test/harness";
import { signInAs } from "../operators/admin-testing";
import { operatorBearer } from "../operators/testing";
import { FORWARDED_REQUEST_HEADERS } from "../paid-forward";
import { signInUser } from "../users/testing";
import type { GatewayRoute } from "./gateway-config-service";
import { gatewayTarget } from "./gateway-router";

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

describe("hosted gateway (/g)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-gateway-"));
  let chains: LocalChains;
  let api: TestApi;
  let agent: Agent;
  let upstream: Server;
  let upstreamUrl: string;
  let mode: "ok" | "500" | "503" | "404" | "hang" = "ok";
  const seen: Seen[] = [];
  let merchant: { id: string; secret: string };
  let originSecret: string;
  // The API's clock: moved forward instead of sleeping past the route cache.
  let clockOffsetMs = 0;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(
      "pglite",
      { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1", GATEWAY_TIMEOUT_MS: "500" },
      { clock: { now: () => new Date(Date.now() + clockOffsetMs) } },
    );
    agent = agentOn(chains.chains[0]!, 12);
    const origin = express();
    origin.use(express.text({ type: () => true }));
    origin.all("/{*rest}", (req, res) => {
      seen.push({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        body: typeof req.body === "string" ? req.body : "",
      });
      if (mode === "hang") return; // never answers
      if (mode === "500" || mode === "503") {
        res.status(Number(mode)).send("upstream broke");
        return;
      }
      if (mode === "404") {
        res.status(404).json({ error: "no such thing" });
        return;
      }
      res.setHeader("x-upstream", "yes");
      res.setHeader("set-cookie", "session=upstream; Path=/");
      res.setHeader("connection", "keep-alive");
      res.json({ echoed: req.originalUrl, method: req.method });
    });
    upstream = origin.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => upstream.once("listening", resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api`;
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.02" } }),
    });
    merchant = { id: String(created.json.merchant_id), secret: String(created.json.secret) };
    const route = await api.call("PUT", `/v1/merchants/${merchant.id}/gateway`, {
      headers: bearer(merchant.secret),
      body: { slug: "acme-search", upstream_url: upstreamUrl },
    });
    expect(route.status, route.text).toBe(200);
    originSecret = String(route.json.origin_secret);
    expect(route.json).toMatchObject({ gateway_url: `${api.baseUrl}/g/acme-search`, tier: "standard" });
  }, 120_000);

  afterAll(async () => {
    upstream?.closeAllConnections();
    upstream?.close();
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    mode = "ok";
    seen.length = 0;
  });

  const gw = (path: string, init: RequestInit = {}) => fetch(`${api.baseUrl}/g/acme-search${path}`, init);

  async function receipt(): Promise<string> {
    const challenge = await gw("/search");
    expect(challenge.status).toBe(402);
    return (await payChallenge(agent, (await challenge.json()) as GateChallenge)).receipt;
  }

  it("answers 402 like the gate, then forwards the paid request with the origin secret and without our headers", async () => {
    const challengeResponse = await gw("/search?q=1");
    expect(challengeResponse.status).toBe(402);
    const challenge = (await challengeResponse.json()) as GateChallenge;
    expect(challenge).toMatchObject({
      merchant_id: merchant.id,
      resource: "/acme-search",
      tier: "standard",
      unit_price: "0.02",
    });
    expect(seen).toHaveLength(0);

    const { receipt: token, quote } = await payChallenge(agent, challenge);
    expect(quote.units).toBe(5);
    const paid = await gw("/search/deep?q=hello%20world", {
      method: "POST",
      headers: {
        [RECEIPT_HEADER]: token,
        "content-type": "text/plain",
        "x-tollgate-origin-secret": "forged",
        "x-custom": "not on the list",
      },
      body: "the body",
    });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ echoed: "/api/search/deep?q=hello%20world", method: "POST" });
    expect(paid.headers.get(QUOTA_REMAINING_HEADER)).toBe("4");
    expect(paid.headers.get("x-upstream")).toBe("yes");
    const forwarded = seen[0]!;
    expect(forwarded.body).toBe("the body");
    expect(forwarded.headers["x-tollgate-origin-secret"]).toBe(originSecret);
    expect(forwarded.headers["x-custom"]).toBeUndefined();
    expect(forwarded.headers["aifp-receipt"]).toBeUndefined();
    expect(forwarded.headers["x-tollgate-payer"]).toBe(agent.address.toLowerCase());
  });

  it("security: only the allow-listed end-to-end headers reach the upstream, never our credentials", async () => {
    const token = await receipt();
    const operatorCookie = (await signInAs(api, "viewer")).cookie;
    const operatorToken = (await operatorBearer(api)).authorization!;
    const userCookie = `tollgate_user=${(await signInUser(api)).token}`;
    const paid = await gw("/search", {
      method: "POST",
      headers: {
        [RECEIPT_HEADER]: token,
        accept: "application/json",
        "accept-language": "de",
        "content-type": "application/json",
        "user-agent": "agent/1.0",
        "idempotency-key": "k-1",
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        cookie: `${operatorCookie}; ${userCookie}`,
        authorization: operatorToken,
        "proxy-authorization": "Basic eDp5",
        "x-tollgate-csrf": "1",
        "x-forwarded-for": "10.0.0.1",
        "x-forwarded-host": "evil.example",
        forwarded: "for=10.0.0.1",
        "x-api-key": "agent-key",
        "x-payment": "eyJ4",
        "payment-signature": "eyJ4",
      },
      body: "{}",
    });
    expect(paid.status, await paid.clone().text()).toBe(200);
    const received = seen[0]!.headers;
    expect(received).toMatchObject({
      accept: "application/json",
      "accept-language": "de",
      "content-type": "application/json",
      "user-agent": "agent/1.0",
      "idempotency-key": "k-1",
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "x-tollgate-origin-secret": originSecret,
    });
    // Ours (origin secret, payer, receipt id, request id) and the outbound client's own connection headers only.
    const ours = ["x-tollgate-origin-secret", "x-tollgate-payer", "x-tollgate-receipt-id", "x-request-id"];
    const connection = ["host", "connection", "content-length"];
    for (const name of Object.keys(received)) {
      expect(
        FORWARDED_REQUEST_HEADERS.has(name) || ours.includes(name) || connection.includes(name),
        name,
      ).toBe(true);
    }
    const everything = JSON.stringify(received);
    for (const secret of [
      operatorCookie,
      userCookie,
      operatorToken,
      "10.0.0.1",
      "evil.example",
      "agent-key",
    ]) {
      expect(everything).not.toContain(
        secret
          .split("=")
          .pop()!
          .replace(/^Bearer /, ""),
      );
    }
  });

  it("a receipt whose payment was orphaned is refused at once from the database's state", async () => {
    const token = await receipt();
    const ok = await gw("/search", { headers: { [RECEIPT_HEADER]: token } });
    expect(ok.status).toBe(200);
    const { jti } = decodeJwt(token);
    // What the indexer writes when the payment's block is orphaned (apps/indexer receipt-states drill).
    for (const state of ["suspended", "revoked"] as const) {
      await api.deps.db.db
        .update(receipts)
        .set({ state })
        .where(eq(receipts.id, String(jti)));
      const refused = await gw("/search", { headers: { [RECEIPT_HEADER]: token } });
      expect(refused.status, state).toBe(402);
      const body = (await refused.json()) as GateChallenge;
      expect(body.code).toBe("receipt_revoked");
      expect(body.detail).toContain(state);
    }
    await api.deps.db.db
      .update(receipts)
      .set({ state: "valid" })
      .where(eq(receipts.id, String(jti)));
    const back = await gw("/search", { headers: { [RECEIPT_HEADER]: token } });
    expect(back.status).toBe(200);
    expect(back.headers.get(QUOTA_REMAINING_HEADER)).toBe("3");
  });

  it("an upstream 500, 503 or timeout answers 502/504 and does not consume the unit", async () => {
    const token = await receipt();
    for (const [failure, status] of [
      ["500", 502],
      ["503", 502],
      ["hang", 504],
    ] as const) {
      mode = failure;
      const response = await gw("/search", { headers: { [RECEIPT_HEADER]: token } });
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(((await response.json()) as { code: string }).code).toBe(
        status === 504 ? "upstream_timeout" : "upstream_failed",
      );
    }
    mode = "ok";
    const ok = await gw("/search", { headers: { [RECEIPT_HEADER]: token } });
    expect(ok.status).toBe(200);
    // 5 units bought; the three failures gave theirs back.
    expect(ok.headers.get(QUOTA_REMAINING_HEADER)).toBe("4");
  });

  it("an upstream that cannot be reached answers 502 and does not consume the unit", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.02" } }),
    });
    const id = String(created.json.merchant_id);
    await api.call("PUT", `/v1/merchants/${id}/gateway`, {
      headers: bearer(created.json.secret),
      body: { slug: "dead-origin", upstream_url: "http://127.0.0.1:9/api" },
    });
    const challenge = await fetch(`${api.baseUrl}/g/dead-origin/x`);
    const { receipt: token } = await payChallenge(agent, (await challenge.json()) as GateChallenge);
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${api.baseUrl}/g/dead-origin/x`, {
        headers: { [RECEIPT_HEADER]: token },
      });
      expect(response.status).toBe(502);
    }
    const facts = await api.call("GET", "/v1/merchants/me", { headers: bearer(created.json.secret) });
    expect(facts.status).toBe(200);
    // The receipt still has all 5 units: a working upstream would now serve 5 calls.
    const rerouted = await api.call("PUT", `/v1/merchants/${id}/gateway`, {
      headers: bearer(created.json.secret),
      body: { slug: "dead-origin", upstream_url: upstreamUrl },
    });
    expect(rerouted.status).toBe(200);
    clockOffsetMs += 5_100; // past the route cache
    const served = await fetch(`${api.baseUrl}/g/dead-origin/x`, { headers: { [RECEIPT_HEADER]: token } });
    expect(served.status).toBe(200);
    expect(served.headers.get(QUOTA_REMAINING_HEADER)).toBe("4");
  });

  it("an upstream 404 is delivered and counts", async () => {
    const token = await receipt();
    mode = "404";
    const response = await gw("/missing", { headers: { [RECEIPT_HEADER]: token } });
    expect(response.status).toBe(404);
    expect(response.headers.get(QUOTA_REMAINING_HEADER)).toBe("4");
  });

  it("security: '..' segments never leave the upstream base path, and upstream headers cannot act on our origin", async () => {
    const token = await receipt();
    // Sent raw (like curl --path-as-is): fetch would normalise the dot segments away before sending.
    const raw = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${api.baseUrl}/g/acme-search${path}`, {
          headers: { [RECEIPT_HEADER]: token },
        });
        request.path = `/g/acme-search${path}`;
        request.on("response", (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on("error", reject);
        request.end();
      });
    for (const path of ["/%2e%2e/%2e%2e/admin", "/%2E%2E/secret", "/a/%2e%2e/%2e%2e/x", "/./x", "/../x"]) {
      expect(await raw(path)).toBe(400);
    }
    expect(seen).toHaveLength(0);
    const ok = await gw("/search", { headers: { [RECEIPT_HEADER]: token } });
    expect(ok.headers.get(QUOTA_REMAINING_HEADER)).toBe("4"); // refused paths cost nothing
    expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
    expect(ok.headers.get("content-security-policy")).toBe("sandbox");
    expect(ok.headers.get("set-cookie")).toBeNull();
  });

  it("an unknown slug is a problem+json 404, and other methods are refused", async () => {
    const unknown = await fetch(`${api.baseUrl}/g/nobody-here/x`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe("gateway_route_not_found");
    // A slug no route can have (a NUL the database refuses, a bidi control) is unknown, never a 500.
    for (const slug of ["%00", "a%00b", "%E2%80%AE", "UPPER"]) {
      const junk = await fetch(`${api.baseUrl}/g/${slug}/x`);
      expect(junk.status, slug).toBe(404);
      expect(((await junk.json()) as { code: string }).code).toBe("gateway_route_not_found");
    }
    const options = await gw("/x", { method: "OPTIONS" });
    expect(options.status).toBe(405);
  });

  it("configuration: rules, ownership and the origin secret shown only on create and rotate", async () => {
    const put = (id: string, secret: string | undefined, body: unknown) =>
      api.call("PUT", `/v1/merchants/${id}/gateway`, { headers: secret ? bearer(secret) : {}, body });
    const other = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test" }),
    });
    const otherId = String(other.json.merchant_id);
    const otherSecret = String(other.json.secret);
    const cases: [unknown, number, string][] = [
      [{ slug: "A", upstream_url: upstreamUrl }, 400, "slug"],
      [{ slug: "ok-slug", upstream_url: "http://example.com/x" }, 400, "upstream_url"],
      [{ slug: "ok-slug", upstream_url: "https://10.0.0.1/x" }, 400, "upstream_url"],
      [{ slug: "ok-slug", upstream_url: upstreamUrl, tier: "gold" }, 400, "tier"],
    ];
    for (const [body, status, path] of cases) {
      const response = await put(otherId, otherSecret, body);
      expect(response.status).toBe(status);
      expect(response.json.errors).toContainEqual(expect.objectContaining({ path }));
    }
    expect((await put(otherId, otherSecret, { slug: "acme-search", upstream_url: upstreamUrl })).status).toBe(
      409,
    );
    expect((await put(merchant.id, otherSecret, { slug: "x-y-z", upstream_url: upstreamUrl })).status).toBe(
      403,
    );
    expect((await put(merchant.id, undefined, { slug: "x-y-z", upstream_url: upstreamUrl })).status).toBe(
      401,
    );

    const read = await api.call("GET", `/v1/merchants/${merchant.id}/gateway`, {
      headers: bearer(merchant.secret),
    });
    expect(read.json).not.toHaveProperty("origin_secret");
    const rotated = await api.call("POST", `/v1/merchants/${merchant.id}/gateway/origin-secret/rotate`, {
      headers: bearer(merchant.secret),
    });
    expect(rotated.json.origin_secret).toMatch(/^tgo_/);
    expect(rotated.json.origin_secret).not.toBe(originSecret);
  });

  it("a route whose tier the merchant removed answers 503 service_unavailable, not a 500", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.02", premium: "0.05" } }),
    });
    const id = String(created.json.merchant_id);
    const secret = String(created.json.secret);
    const route = await api.call("PUT", `/v1/merchants/${id}/gateway`, {
      headers: bearer(secret),
      body: { slug: "tier-gone", upstream_url: upstreamUrl, tier: "premium" },
    });
    expect(route.status).toBe(200);
    expect((await fetch(`${api.baseUrl}/g/tier-gone/x`)).status).toBe(402);
    const patched = await api.call("PATCH", `/v1/merchants/${id}`, {
      headers: bearer(secret),
      body: { tiers: { premium: null } },
    });
    expect(patched.status).toBe(200);
    const response = await fetch(`${api.baseUrl}/g/tier-gone/x`);
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(response.headers.get("retry-after")).toBe("5");
    expect(((await response.json()) as { code: string }).code).toBe("service_unavailable");
    expect(seen).toHaveLength(0);
  });
});

describe("gatewayTarget", () => {
  const route = { upstreamUrl: "https://api.acme.example/v1/" } as GatewayRoute;
  it("appends the encoded sub-path and the query under the upstream URL", () => {
    expect(gatewayTarget(route, ["search", "a b"], "?q=1")?.href).toBe(
      "https://api.acme.example/v1/search/a%20b?q=1",
    );
    expect(gatewayTarget(route, undefined, "")?.href).toBe("https://api.acme.example/v1");
  });
  it("never leaves the upstream's base path or origin", () => {
    expect(gatewayTarget(route, ["..", "admin"], "")).toBeUndefined();
    expect(
      gatewayTarget({ upstreamUrl: "https://api.acme.example/v1" } as GatewayRoute, ["..", "v10"], ""),
    ).toBeUndefined();
    expect(gatewayTarget(route, ["%2e%2e", "x"], "")?.pathname).toBe("/v1/%252e%252e/x");
  });
});
