import { Validator } from "@seriousme/openapi-schema-validator";
import { ERROR_CODES } from "@tollgate/shared";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import type { AppRouter } from "./app-router";
import { startTestApi, type TestApi, VALID_EVM } from "./test/harness";

describe("app", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi("pglite");
  });
  afterAll(async () => {
    await api?.close();
  });

  it("publishes only public receipt keys, cacheable", async () => {
    const jwks = await api.call("GET", "/.well-known/jwks.json");
    expect(jwks.headers.get("cache-control")).toBe("public, max-age=300");
    const keys = jwks.json.keys as Record<string, unknown>[];
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
      expect(key).not.toHaveProperty("d");
    }
  });

  it("answers /healthz and /readyz", async () => {
    expect((await api.call("GET", "/healthz")).json).toEqual({ status: "ok" });
    const ready = await api.call("GET", "/readyz");
    expect(ready.status).toBe(200);
    // No manifest here: no network, and no v1.4 splitter that would need a quote signer.
    expect(ready.json).toEqual({
      status: "ready",
      database: { status: "ok", kind: "pglite" },
      receipt_key: { status: "ok", kid: expect.any(String) },
      quote_signer: { status: "ok" },
      networks: {},
      indexer: { status: "ok", halted_networks: [] },
    });
  });

  it("publishes a valid OpenAPI 3.1 document with problem+json errors on every route", async () => {
    const { json: document } = await api.call("GET", "/openapi.json");
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.1\./);
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    expect(Object.keys(paths).sort()).toEqual(
      [
        "/.well-known/jwks.json",
        "/healthz",
        "/readyz",
        "/g/{slug}/{path}",
        "/api/b2b/pay-with-split",
        "/api/b2b/quote-split",
        "/v1/merchants",
        "/v1/merchants/me",
        "/v1/merchants/{id}",
        "/v1/merchants/{id}/secret/rotate",
        "/v1/merchants/{id}/gateway",
        "/v1/merchants/{id}/gateway/current",
        "/v1/merchants/{id}/gateway/origin-secret/rotate",
        "/v1/merchants/{id}/test-paid-call",
        "/v1/merchants/{id}/revocations",
        "/v1/pay",
        "/v1/quote",
        "/v1/receipts/{id}",
        "/api/metrics",
        "/v1/agents/{address}/transactions",
        "/v1/merchants/{id}/webhook-secret",
        "/v1/merchants/{id}/webhooks/test",
        "/api/admin/login",
        "/api/admin/logout",
        "/api/admin/me",
        "/api/admin/session",
        "/v1/merchants/{id}/listings",
        "/v1/merchants/{id}/listings/{listing_id}",
        "/admin/api/marketplace",
        "/admin/api/marketplace/{id}/approve",
        "/admin/api/marketplace/{id}/reject",
        "/admin/api/marketplace/{id}/suspend",
        "/admin/api/marketplace/{id}/republish",
        "/api/network/marketplace",
        "/discovery/resources",
        "/.well-known/x402",
        "/api/admin/pause",
        "/api/admin/unpause",
        "/api/admin/networks/{network}/resume",
        "/api/admin/initialize-config",
        "/api/admin/audit/export",
        "/api/admin/audit/prune",
        "/api/dashboard/webhooks",
        "/api/dashboard/fees",
        "/api/dashboard/webhooks/{event_id}/replay",
        "/admin/api/overview",
        "/admin/api/transactions",
        "/admin/api/transactions/{id}",
        "/admin/api/merchants",
        "/admin/api/merchants/{id}",
        "/admin/api/merchants/{id}/notes",
        "/admin/api/merchants/{id}/suspend",
        "/admin/api/merchants/{id}/unsuspend",
        "/api/admin/invitations",
        "/api/admin/invitations/accept",
        "/api/admin/invitations/{id}/revoke",
        "/api/admin/operators/{id}/disable",
        "/api/admin/operators/{id}/enable",
        "/api/admin/operators/{id}/revoke-sessions",
        "/api/admin/operators/{id}/role",
        "/admin/api/agents",
        "/admin/api/agents/{addr}",
        "/admin/api/audit",
        "/admin/api/users",
        "/admin/api/users/{id}",
        "/admin/api/search",
        "/nonce",
        "/manifesto.json",
        "/idl.json",
        "/api/live-stats",
        "/api/protocol-docs",
        "/api/dashboard/solana",
        "/api/admin/register-partner",
        "/api/partner/{wallet}",
        "/api/dashboard",
        "/api/user/nonce",
        "/api/user/login",
        "/api/user/logout",
        "/api/user/me",
        "/api/user/wallets",
        "/api/agent/{address}/public-usage",
        "/api/payment-capabilities",
        "/api/registry",
        "/registry",
        "/api/registry/coverage",
        "/registry/coverage",
        "/api/registry/best",
        "/api/agents/register",
        "/api/dashboard/failed",
        "/api/dashboard/failed/{id}/resolve",
        "/api/dashboard/telemetry",
        "/api/dashboard/x402",
        "/v1/merchants/{id}/payout-change/challenge",
        "/v1/merchants/{id}/payout-change",
        "/v1/merchants/{id}/webhooks/deliveries",
        "/v1/merchants/{id}/receipts",
        "/v1/merchants/{id}/settlements",
        "/admin/api/bridge/providers",
        "/admin/api/bridge/providers/{id}",
        "/admin/api/bridge/providers/{id}/disable",
      ].sort(),
    );
    for (const [path, method] of [
      ["/api/user/me", "get"],
      ["/api/user/wallets", "post"],
      ["/api/agent/{address}/public-usage", "get"],
    ] as const) {
      expect(paths[path]?.[method], path).toMatchObject({
        security: [{ userSession: [] }, { userSessionToken: [] }],
      });
    }
    for (const [path, method] of [
      ["/api/dashboard/failed", "get"],
      ["/api/dashboard/failed/{id}/resolve", "post"],
      ["/api/dashboard/telemetry", "get"],
      ["/api/dashboard/x402", "get"],
    ] as const) {
      expect(paths[path]?.[method], path).toMatchObject({
        security: [{ adminSession: [] }, { adminSessionToken: [] }],
      });
    }
    // The scheme comes from the procedure builder that enforces it, so every operator path names it except
    // the ones that start or end a session, say whether there is one (answered signed in or not), or accept an
    // invitation (its one-time token is the credential).
    const operatorPaths = Object.entries(paths).filter(([path]) =>
      /^\/(api\/admin|api\/dashboard|admin\/api)\//.test(path),
    );
    expect(operatorPaths.length).toBeGreaterThan(25);
    for (const [path, operations] of operatorPaths) {
      for (const [method, operation] of Object.entries(operations ?? {})) {
        const opensSession = [
          "/api/admin/login",
          "/api/admin/logout",
          "/api/admin/session",
          "/api/admin/invitations/accept",
        ].includes(path);
        expect((operation as { security?: unknown }).security, `${method} ${path}`).toEqual(
          opensSession ? undefined : [{ adminSession: [] }, { adminSessionToken: [] }],
        );
      }
    }
    expect(paths["/api/admin/me"]?.get).toMatchObject({
      security: [{ adminSession: [] }, { adminSessionToken: [] }],
    });
    expect(paths["/api/admin/pause"]?.post).toMatchObject({
      security: [{ adminSession: [] }, { adminSessionToken: [] }],
    });
    expect(paths["/admin/api/transactions"]?.get).toMatchObject({
      security: [{ adminSession: [] }, { adminSessionToken: [] }],
    });
    expect(Object.keys(paths["/v1/pay"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "202", "409", "422"]),
    );
    expect(Object.keys(paths["/v1/merchants"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["201", "400", "429", "500"]),
    );
    for (const item of Object.values(paths)) {
      for (const operation of Object.values(item)) {
        expect(operation.responses["500"]).toEqual({ $ref: "#/components/responses/Problem500" });
      }
    }
    const yaml = await api.call("GET", "/openapi.yaml");
    expect(yaml.headers.get("content-type")).toContain("application/yaml");
    expect(YAML.parse(yaml.text)).toEqual(document);
  });

  it("serves a reference page and an error-code page that problem types link to", async () => {
    const page = await api.call("GET", "/docs");
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.text).toContain("/v1/merchants/{id}/secret/rotate");
    const errors = await api.call("GET", "/docs/errors");
    for (const code of ERROR_CODES) expect(errors.text).toContain(`id="${code}"`);
    const problem = await api.call("GET", "/v1/merchants/mrch_1111111111111111");
    expect(problem.json.type).toBe("/docs/errors#merchant_not_found");
  });

  it("answers unknown routes with a problem+json 404, never HTML", async () => {
    for (const path of ["/nope", "/v1/unknown", "/api/providers", "/console/"]) {
      const response = await api.call("GET", path);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code).toBe("not_found");
    }
    const wrongMethod = await api.call("DELETE", "/v1/merchants");
    expect(wrongMethod.status).toBe(404);
  });

  it("answers an unknown tRPC procedure with a problem+json 404, not tRPC's envelope", async () => {
    for (const [method, path] of [
      ["GET", "/trpc/no.such.procedure"],
      ["POST", "/trpc/no.such.procedure"],
      ["GET", "/trpc/merchant.get,no.such?batch=1"],
      ["GET", "/trpc"],
      ["GET", "/trpc/%zz"],
      ["GET", "/trpc/__proto__"],
    ] as const) {
      const response = await api.call(method, path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toContain("application/problem+json");
      expect(response.json.code, path).toBe("not_found");
      expect(response.json.error, path).toBeUndefined();
    }
    // A known procedure keeps tRPC's wire format (the console's client reads it).
    const known = await api.call("GET", "/trpc/merchant.get?input=%7B%7D");
    expect(known.status).toBe(400);
    expect((known.json.error as { data?: { code?: string } }).data?.code).toBe("validation_failed");
  });

  it("puts a request id on every response and error body; honours a well-formed incoming one", async () => {
    const own = await api.call("GET", "/v1/merchants/mrch_1111111111111111", {
      headers: { "x-request-id": "trace-12345678" },
    });
    expect(own.headers.get("x-request-id")).toBe("trace-12345678");
    expect(own.json.request_id).toBe("trace-12345678");
    const injected = await api.call("GET", "/healthz", {
      headers: { "x-request-id": "bad id\twith spaces" },
    });
    expect(injected.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("speaks tRPC at /trpc with the same problem data in errors", async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${api.baseUrl}/trpc` })] });
    const created = await client.merchant.register.mutate({ name: "Via tRPC", pay_to: { evm: VALID_EVM } });
    expect(created.merchant_id).toMatch(/^mrch_/);
    const fetched = await client.merchant.get.query({ id: created.merchant_id });
    expect(fetched.name).toBe("Via tRPC");
    const failure = await client.merchant.register
      .mutate({ name: "x", pay_to: {} })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCClientError);
    const data = (failure as TRPCClientError<AppRouter>).data as unknown as Record<string, unknown>;
    expect(data).toMatchObject({ code: "validation_failed", status: 400, httpStatus: 400 });
    expect(data.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "name", code: "too_short" }),
        expect.objectContaining({ path: "pay_to", code: "pay_to_empty" }),
      ]),
    );
    expect(JSON.stringify(data)).not.toContain("stack");
  });
});
