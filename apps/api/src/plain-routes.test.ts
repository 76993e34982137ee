import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS, MAX_BODY_EXTENSION } from "./http/body";
import { plainRoutes } from "./plain-routes";
import { registrationBody, startTestApi, type TestApi, testDatabaseKinds } from "./test/harness";

/** The registry of plain Express routes (not a route itself): each one is served and documented. */
describe.each(testDatabaseKinds())("plain routes on %s", (kind) => {
  let api: TestApi;
  let merchantId: string;
  beforeAll(async () => {
    api = await startTestApi(kind);
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test" }),
    });
    merchantId = String(created.json.merchant_id);
  });
  /** A path with its Express parameters filled in with things that exist. */
  const concrete = (path: string) => path.replace(":id", merchantId);
  afterAll(async () => {
    await api?.close();
  });

  it("lists each method and path once", () => {
    const keys = plainRoutes.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain("get /.well-known/jwks.json");
  });

  it("every plain route is in the OpenAPI document with its own operation", async () => {
    const doc = await api.call("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    const paths = doc.json.paths as Record<string, Record<string, { operationId?: string }>>;
    for (const route of plainRoutes) {
      const documented = route.path.replace(/:(\w+)/g, "{$1}");
      // As declared, plus the JSON reader's body limit on a request body (issue 16: every body names its limit).
      const body = route.openapi.requestBody as Record<string, unknown> | undefined;
      const expected = body
        ? { ...route.openapi, requestBody: { ...body, [MAX_BODY_EXTENSION]: BODY_LIMITS.json } }
        : route.openapi;
      expect(paths[documented]?.[route.method], `${route.method} ${route.path}`).toEqual(expected);
    }
  });

  it("every plain route is registered: it answers, and never with the catch-all 404", async () => {
    for (const route of plainRoutes) {
      const res = await api.call(
        route.method.toUpperCase(),
        concrete(route.path),
        route.method === "post" ? { body: {} } : {},
      );
      expect(res.status, `${route.method} ${route.path}`).not.toBe(404);
      // GETs succeed (identity-gated ones answer their 402 challenge, issue 12); POST /v1/pay refuses an empty
      // body as a client error, not a server one.
      // A GET with a required query parameter (GET /api/registry/best) answers 400 naming it.
      const required = ((route.openapi.parameters ?? []) as { in: string; required?: boolean }[]).some(
        (parameter) => parameter.in === "query" && parameter.required,
      );
      if (route.method === "get" && required) expect(res.json.code).toBe("validation_failed");
      else if (route.method === "get")
        expect(res.status).toBe(res.json.code === "identity_required" ? 402 : 200);
      else expect(res.status).toBe(400);
    }
  });
});
