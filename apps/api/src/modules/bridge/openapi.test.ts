import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { appRouter } from "../../app-router";
import { buildOpenApiDocument } from "../../http/openapi-document";
import { plainRoutes } from "../../plain-routes";
import { bridgeOpenApiPaths } from "./openapi";

describe("bridge OpenAPI", () => {
  it("describes the bridge, facilitator and b2b routes in a valid 3.1 document", async () => {
    const document = buildOpenApiDocument(
      appRouter,
      "http://127.0.0.1:3000",
      plainRoutes,
      bridgeOpenApiPaths("/bridge"),
    );
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
  });
});
