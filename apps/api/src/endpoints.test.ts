import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpointMounts } from "./app";
import { createModules } from "./compose";
import { MAX_BODY_EXTENSION } from "./http/body";
import { operationOf } from "./http/openapi-operation";
import { registrationBody, startTestApi, storageDatabaseKinds, type TestApi } from "./test/harness";

type Operation = { operationId?: string; [key: string]: unknown };

/**
 * Every declared endpoint (http/endpoint.ts) is mounted, documented with its own operation, and answers: the
 * list is read from the modules, so an endpoint added to a module is covered without touching this file.
 */
describe.each(storageDatabaseKinds("pglite"))("declared endpoints on %s", (kind) => {
  let api: TestApi;
  let merchantId: string;
  let mounts: ReturnType<typeof endpointMounts>["mounts"];
  let modules: ReturnType<typeof createModules>;
  beforeAll(async () => {
    api = await startTestApi(kind);
    modules = createModules(api.deps);
    mounts = endpointMounts(api.deps, modules).mounts;
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test" }),
    });
    merchantId = String(created.json.merchant_id);
  });
  afterAll(async () => {
    await api?.close();
  });

  const declared = () =>
    mounts.flatMap(({ prefix, endpoints }) =>
      endpoints.flatMap(({ definition }) =>
        (definition.method === "all" ? (definition.methods ?? ["get"]) : [definition.method]).map(
          (method) => ({
            method,
            path: `${prefix}${definition.path}`,
            definition,
          }),
        ),
      ),
    );
  /** A documented path with its parameters filled in: the merchant that exists, otherwise a plausible value. */
  const concrete = (path: string) =>
    path.replace("{id}", merchantId).replace(/\{(\w+)\}/g, (_match, name: string) => `sample-${name}`);

  it("declares each method and path once, JWKS and the quote among them", () => {
    const keys = declared().map(({ method, path }) => `${method} ${path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(
      expect.arrayContaining(["get /.well-known/jwks.json", "post /v1/quote", "post /v1/pay"]),
    );
  });

  it("mounts every endpoint a module declares", () => {
    const mounted = new Set(mounts.flatMap(({ endpoints }) => endpoints.map(({ definition }) => definition)));
    for (const [name, module] of Object.entries(modules)) {
      const endpoints = (module as { endpoints?: { definition: unknown }[] }).endpoints ?? [];
      for (const { definition } of endpoints) expect(mounted.has(definition as never), name).toBe(true);
    }
  });

  it("documents every endpoint with the operation its definition describes", async () => {
    const doc = await api.call("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    const paths = doc.json.paths as Record<string, Record<string, Operation>>;
    for (const { method, path, definition } of declared()) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      const expected = operationOf(definition) as Operation;
      const operationId =
        definition.method === "all" ? `${definition.operationId}-${method}` : definition.operationId;
      expect(operation?.operationId, `${method} ${path}`).toBe(operationId);
      expect(operation?.summary, `${method} ${path}`).toBe(expected.summary);
      // A body names its size limit (the JSON reader's, or the endpoint's own).
      const body = operation?.requestBody as Record<string, unknown> | undefined;
      if (body) expect(body[MAX_BODY_EXTENSION], `${method} ${path}`).toEqual(expect.any(Number));
    }
  });

  it("routes every endpoint: it answers, never with the catch-all 404 nor a 5xx", async () => {
    for (const { method, path } of declared()) {
      // The gateway forwards to a merchant's origin; its own route is covered in modules/gateway.
      if (path.startsWith("/g/")) continue;
      const res = await api.call(method.toUpperCase(), concrete(path), method === "get" ? {} : { body: {} });
      const detail = typeof res.json?.detail === "string" ? res.json.detail : "";
      expect(detail.startsWith("no route for"), `${method} ${path}: ${detail}`).toBe(false);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
    }
  });
});
