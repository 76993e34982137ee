import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { bindEndpoints } from "../../http/bind-endpoint";
import { buildOpenApiDocument } from "../../http/openapi-document";
import { createLogger } from "../../infra/logger";
import { router } from "../../trpc/trpc";
import { routerConfig } from "./config";
import { b2bEndpoints, bridgeEndpoints } from "./router";
import { offlineChainRegistry } from "./testing";

describe("bridge OpenAPI", () => {
  it("describes the bridge, facilitator and b2b routes in a valid 3.1 document, from their declarations", async () => {
    const log = createLogger("silent");
    const config = routerConfig([
      {
        id: "search",
        upstream_url: "https://api.example.com",
        merchant_wallet: "0x52908400098527886E0F7030069857D2E4169EE7",
        price_wei: "1000",
      },
    ]);
    const bridge = bindEndpoints({} as never, log, bridgeEndpoints(config));
    const document = buildOpenApiDocument(router({}), "http://127.0.0.1:3000", [
      { prefix: "/bridge", endpoints: bridge },
      { prefix: "", endpoints: b2bEndpoints({ chains: offlineChainRegistry(), log }) },
    ]);
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys(document.paths ?? {})).toEqual(
      expect.arrayContaining([
        "/bridge/{provider}/{path}",
        "/bridge/.well-known/x402.json",
        "/bridge/facilitator/verify",
        "/api/b2b/quote-split",
        "/api/b2b/pay-with-split",
      ]),
    );
    const paid = document.paths?.["/bridge/{provider}/{path}"] as Record<string, { operationId: string }>;
    expect([paid.get?.operationId, paid.post?.operationId]).toEqual(["bridge-get", "bridge-post"]);
  });
});
