/**
 * Support for the hostile-input sweeps: every operation comes from the running API's own /openapi.json,
 * so a route added later is swept without editing a list. Bodies are generated from each operation's JSON schema
 * (a few known-good fixtures make the base bodies valid, so a refusal can be pinned on the field under test).
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseKind } from "@tollgate/db";
import { expect } from "vitest";
import { MAX_BODY_EXTENSION } from "../http/body";
import type { OrderStore } from "../modules/bridge/orders";
import { offlineChainRegistry } from "../modules/bridge/testing";
import { operatorBearer } from "../modules/operators/testing";
import { signInUser } from "../modules/users/testing";
import { bearer, registrationBody, startTestApi, type TestApi, VALID_EVM } from "./harness";

export interface SweptOperation {
  method: string;
  path: string;
  operation: OperationObject;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: JsonSchema;
}

interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: {
    required?: boolean;
    content?: Record<string, { schema?: JsonSchema }>;
    [MAX_BODY_EXTENSION]?: number;
  };
  security?: Record<string, string[]>[];
  responses?: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
}

/** The bridge provider the sweeps point `/bridge/{provider}/…` at (its upstream is never reached: no proof is valid). */
export const SWEEP_PROVIDER = "sweep";

/** The bridge's body limit in the sweeps (a raw body one byte longer is 413). */
export const BRIDGE_SWEEP_MAX_BODY = 64 * 1024;

/** A swept API: the bridge mounted at `/bridge` (one provider) over an offline chain, and the bridge's order store. */
export interface SweepApi extends TestApi {
  /** How many writes (orders, claims, results) the bridge's order store has taken so far. */
  orderStoreWrites(): number;
}

/**
 * The API the sweeps run against: every route of the document, `/bridge/*` included. The chain is offline (amoy with
 * a v1.2 splitter, no token, no relayer), so challenges are issued without an RPC call and nothing settles.
 */
export async function startSweepApi(kind: DatabaseKind, env: Record<string, string> = {}): Promise<SweepApi> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-sweep-"));
  const providers = join(dir, "providers.json");
  writeFileSync(
    providers,
    JSON.stringify({
      providers: [
        {
          id: SWEEP_PROVIDER,
          upstream_url: "http://127.0.0.1:9/api",
          price_wei: "10000",
          merchant_wallet: VALID_EVM,
        },
      ],
    }),
  );
  const api = await startTestApi(
    kind,
    {
      BRIDGE_PROVIDERS_FILE: providers,
      BRIDGE_CHALLENGES_PER_MINUTE: "1000000",
      BRIDGE_MAX_BODY_BYTES: String(BRIDGE_SWEEP_MAX_BODY),
      ...env,
    },
    { chains: offlineChainRegistry() },
  );
  const bridge = api.bridge;
  if (!bridge) throw new Error("the sweep API has no bridge");
  await bridge.ready();
  const writes = countWrites(bridge.store);
  return {
    ...api,
    orderStoreWrites: writes,
    async close() {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Counts the writes to `store` from here on (the store object is shared by every bridge context). */
function countWrites(store: OrderStore): () => number {
  let writes = 0;
  const counted =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      writes++;
      return write.apply(store, args);
    };
  Object.assign(store, {
    putOrder: counted(store.putOrder),
    claim: counted(store.claim),
    extend: counted(store.extend),
    consume: counted(store.consume),
    putResult: counted(store.putResult),
  });
  return () => writes;
}

/** Does `op` document a 402 that is a payment challenge (JSON, not a problem)? Only the bridge's paid calls do. */
export function answersChallenge(op: SweptOperation): boolean {
  const answer = op.operation.responses?.["402"];
  return answer !== undefined && answer.$ref === undefined;
}

/** Every operation of the running API's /openapi.json. */
export async function openApiOperations(api: TestApi): Promise<SweptOperation[]> {
  const { json } = await api.call("GET", "/openapi.json");
  const paths = json.paths as Record<string, Record<string, OperationObject>>;
  const operations: SweptOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (["get", "post", "put", "patch", "delete"].includes(method))
        operations.push({ method: method.toUpperCase(), path, operation });
    }
  }
  return operations;
}

export function bodySchema(operation: SweptOperation): JsonSchema | undefined {
  return operation.operation.requestBody?.content?.["application/json"]?.schema;
}

/** A body taken as raw bytes of any media type and forwarded as sent (the bridge's paid calls). */
export function takesRawBody(operation: SweptOperation): boolean {
  return operation.operation.requestBody?.content?.["*/*"] !== undefined;
}

export function parameters(operation: SweptOperation, where: ParameterObject["in"]): ParameterObject[] {
  return (operation.operation.parameters ?? []).filter((parameter) => parameter.in === where);
}

/** Is `schema` (or one of its alternatives) an integer? */
export function isIntegerSchema(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("integer")) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(isIntegerSchema);
}

/** A merchant, its secret and a gateway route: the data every swept operation can be pointed at. */
export interface SweepFixture {
  merchantId: string;
  secret: string;
  slug: string;
  headers: Record<string, string>;
  /** An operator's session (bearer, with the CSRF header), for the routes behind `adminSession`. */
  adminHeaders: Record<string, string>;
  /** A signed-in user's bearer session (with the CSRF header), for the routes behind `userSession`. */
  userHeaders: Record<string, string>;
  /** Values for path parameters, by name. */
  pathValues: Record<string, string>;
}

export async function createSweepFixture(api: TestApi, slug = "sweep"): Promise<SweepFixture> {
  const registered = await api.call("POST", "/v1/merchants", { body: registrationBody() });
  expect(registered.status).toBe(201);
  const merchantId = String(registered.json.merchant_id);
  const secret = String(registered.json.secret);
  const gateway = await api.call("PUT", `/v1/merchants/${merchantId}/gateway`, {
    headers: bearer(secret),
    body: { slug, upstream_url: "http://127.0.0.1:9/upstream" },
  });
  expect(gateway.status, gateway.text).toBeLessThan(300);
  return {
    merchantId,
    secret,
    slug,
    headers: { ...bearer(secret), "x-tollgate-csrf": "1", "idempotency-key": "sweep-key-0001" },
    adminHeaders: { ...(await operatorBearer(api, "operator")), "x-tollgate-csrf": "1" },
    userHeaders: { ...(await signInUser(api)).headers, "x-tollgate-csrf": "1" },
    pathValues: { id: merchantId, address: VALID_EVM, provider: SWEEP_PROVIDER, slug, path: "x" },
  };
}

/** The credentials an operation's OpenAPI security asks for: an operator or user session, or the merchant's secret. */
export function headersFor(op: SweptOperation, fixture: SweepFixture): Record<string, string> {
  const asks = (scheme: string) =>
    (op.operation.security ?? []).some((requirement) => Object.hasOwn(requirement, scheme));
  if (asks("adminSession")) return fixture.adminHeaders;
  if (asks("userSession")) return fixture.userHeaders;
  return fixture.headers;
}

/** `path` with `{name}` filled from `values` (or a harmless placeholder). */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_all, name: string) =>
    encodeURIComponent(Object.hasOwn(values, name) ? values[name]! : "x"),
  );
}

/** Known-good values for fields whose rules a generator cannot guess (all others come from the schema). */
const KNOWN_GOOD: Record<string, unknown> = {
  name: "Sweep Merchant",
  pay_to: { evm: VALID_EVM },
  slug: "sweep-two",
  upstream_url: "http://127.0.0.1:9/upstream",
  resource: "/sweep",
  tier: "standard",
  email: "sweep@example.com",
  password: "correct horse battery staple",
  webhook_url: null,
};

/** A value for `schema`, valid where the schema says enough; `name` picks a known-good fixture first. */
export function sampleValue(schema: JsonSchema | undefined, name = "", fixture?: SweepFixture): unknown {
  if (name === "merchant_id" && fixture) return fixture.merchantId;
  if (Object.hasOwn(KNOWN_GOOD, name)) return structuredClone(KNOWN_GOOD[name]);
  if (!schema) return "x";
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0];
  if (alternative) return sampleValue(alternative, name, fixture);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sampleValue(schema.properties?.[key], key, fixture);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    default:
      return "sweep";
  }
}

/** One string field of a body schema: its dotted path and schema, objects and records walked. */
export interface StringField {
  path: string[];
  schema: JsonSchema;
  /** Free text: no enum, const, pattern or format narrows it (so a refused character is the only thing wrong). */
  free: boolean;
}

export function stringFields(schema: JsonSchema | undefined, prefix: string[] = []): StringField[] {
  if (!schema) return [];
  const fields: StringField[] = [];
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    fields.push(...stringFields(alternative, prefix));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("string") && prefix.length > 0)
    fields.push({
      path: prefix,
      schema,
      free: !schema.enum && schema.const === undefined && !schema.pattern && !schema.format,
    });
  for (const [key, property] of Object.entries(schema.properties ?? {}))
    fields.push(...stringFields(property, [...prefix, key]));
  return fields;
}

/** `body` with the value at `path` replaced (objects created on the way). */
export function withValue(body: unknown, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone((body ?? {}) as Record<string, unknown>);
  let node = copy;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    node[key] = next !== null && typeof next === "object" ? next : {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
  return copy;
}

/** Sends raw bytes (so encodings and invalid UTF-8 arrive exactly as written). */
export async function sendRaw(
  api: TestApi,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown>; text: string }> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = {};
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A 4xx problem+json with a stable code and the request id; `code` pins the code when given. */
export function expectProblem(
  label: string,
  response: { status: number; headers: Headers; json: Record<string, unknown>; text: string },
  code?: string,
): void {
  expect(response.status, `${label}: ${response.text}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${label}: ${response.text}`).toBeLessThan(500);
  expect(response.headers.get("content-type"), label).toMatch(/^application\/problem\+json/);
  expect(typeof response.json.code, label).toBe("string");
  expect(response.json.request_id, label).toBe(response.headers.get("x-request-id"));
  if (code) expect(response.json.code, `${label}: ${response.text}`).toBe(code);
}

/**
 * Never a 5xx; an error is a problem+json with the request id, except the payment challenge (a JSON 402 naming an
 * order) of an operation that documents one: a well-formed request to a paid bridge route is answered with it.
 */
export function expectNoServerError(
  label: string,
  response: { status: number; headers: Headers; json: Record<string, unknown>; text: string },
  op?: SweptOperation,
): void {
  // The sweep's service has no chain behind its networks, so /readyz truthfully reports them down: a readiness
  // report with 503 is its documented answer (docs/operations.md "Readiness"), not a failure caused by the input.
  if (response.status === 503 && response.json.status === "not_ready" && label.includes("/readyz")) return;
  expect(response.status, `${label}: ${response.text}`).toBeLessThan(500);
  const contentType = response.headers.get("content-type") ?? "";
  if (response.status === 402 && op && answersChallenge(op) && contentType.startsWith("application/json")) {
    // The hosted gateway answers the gate's AIFP-1 challenge; the bridge its x402 one with an order.
    if (op.path.startsWith("/g/")) {
      expect(response.json.protocol, `${label}: ${response.text}`).toBe("AIFP-1");
      expect(String(response.json.merchant_id), label).toMatch(/^mrch_/);
      return;
    }
    expect(response.json.x402Version, `${label}: ${response.text}`).toBe(1);
    expect(String((response.json.pay_matic as { order_id?: unknown })?.order_id), label).toMatch(/^ord_/);
    return;
  }
  if (response.status >= 400) expectProblem(label, response);
}
