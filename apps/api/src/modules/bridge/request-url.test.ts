import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { routerConfig, singleProviderConfigFromEnv } from "./config";
import { boundPath, bridgeBaseUrl, querySuffix, requestIdOf, upstreamTarget } from "./request-url";
import { randomAddress } from "./testing";

const merchant = randomAddress();
const router = routerConfig([
  { id: "acme", upstream_url: "https://api.acme.example/v1", price_wei: "1", merchant_wallet: merchant },
]);
const single = singleProviderConfigFromEnv({
  UPSTREAM_URL: "https://api.acme.example/v1",
  PRICE_WEI: "1",
  ROUTE_PATH: "/chat",
  BRIDGE_MERCHANT_WALLET: merchant,
});

/** The parts of an Express request these functions read. */
function req(originalUrl: string, baseUrl = "/bridge"): Request {
  const fields = { originalUrl, baseUrl, protocol: "http", requestId: undefined as string | undefined };
  return Object.assign(fields, {
    get: (name: string) => (name === "host" ? "bridge.local:8080" : undefined),
  }) as unknown as Request;
}

describe("bridge request URLs", () => {
  it("querySuffix keeps the query exactly as received", () => {
    expect(querySuffix(req("/bridge/acme/x?b=2&a=%20"))).toBe("?b=2&a=%20");
    expect(querySuffix(req("/bridge/acme/x"))).toBe("");
  });

  it("the base URL is the configured public one, else where the router was reached", () => {
    expect(bridgeBaseUrl(router, req("/bridge/acme/x"))).toBe("http://bridge.local:8080/bridge");
    expect(bridgeBaseUrl({ ...router, publicUrl: "https://pay.example" }, req("/bridge/acme/x"))).toBe(
      "https://pay.example",
    );
  });

  it("an order binds the path relative to the bridge, wherever it is mounted", () => {
    const provider = router.providers[0]!;
    expect(boundPath(router, provider, "/search", req("/bridge/acme/search?q=1"))).toBe("/acme/search?q=1");
    expect(boundPath(router, provider, "/search", req("/elsewhere/acme/search?q=1", "/elsewhere"))).toBe(
      "/acme/search?q=1",
    );
    expect(boundPath(single, single.providers[0]!, "/chat", req("/chat?x=1", ""))).toBe("/chat?x=1");
  });

  it("the upstream target appends the sub-path (router) or the route path (single) and the query", () => {
    expect(upstreamTarget(router, router.providers[0]!, "/search", req("/bridge/acme/search?q=1")).href).toBe(
      "https://api.acme.example/v1/search?q=1",
    );
    expect(upstreamTarget(router, router.providers[0]!, "/", req("/bridge/acme/")).href).toBe(
      "https://api.acme.example/v1",
    );
    expect(upstreamTarget(single, single.providers[0]!, "/chat", req("/chat?x=1", "")).href).toBe(
      "https://api.acme.example/v1/chat?x=1",
    );
  });

  it("requestIdOf keeps an id set by the API, else mints one once", () => {
    const request = req("/x");
    const minted = requestIdOf(request);
    expect(minted).toMatch(/^req_/);
    expect(requestIdOf(request)).toBe(minted);
  });
});
