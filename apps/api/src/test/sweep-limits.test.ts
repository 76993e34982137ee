/**
 * "Body size limits are explicit per route", swept over every operation in /openapi.json: each request
 * body names its limit (`x-max-body-bytes`), a body one byte over it is 413 `payload_too_large` problem+json and stores
 * nothing, and a body of exactly that size is read (whatever the route then answers, it is not 413 and not 5xx). So
 * the published number is the enforced one, per route, and a route added later without a limit fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS, MAX_BODY_EXTENSION } from "../http/body";
import { storageDatabaseKinds } from "./harness";
import {
  BRIDGE_SWEEP_MAX_BODY,
  createSweepFixture,
  expectNoServerError,
  expectProblem,
  fillPath,
  openApiOperations,
  type SweepApi,
  type SweepFixture,
  type SweptOperation,
  sendRaw,
  startSweepApi,
  takesRawBody,
} from "./sweep";

/** A JSON object of exactly `size` bytes. */
function jsonOfSize(size: number): Uint8Array {
  const frame = '{"pad":""}';
  return new TextEncoder().encode(`{"pad":"${"a".repeat(size - frame.length)}"}`);
}

const limitOf = (op: SweptOperation): unknown =>
  (op.operation.requestBody as Record<string, unknown> | undefined)?.[MAX_BODY_EXTENSION];

describe.each(storageDatabaseKinds("pglite"))("body size limits on every route (%s)", (kind) => {
  let api: SweepApi;
  let fixture: SweepFixture;
  let withBody: SweptOperation[];

  beforeAll(async () => {
    api = await startSweepApi(kind);
    fixture = await createSweepFixture(api);
    withBody = (await openApiOperations(api)).filter((op) => op.operation.requestBody);
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (op: SweptOperation, body: Uint8Array) =>
    sendRaw(
      api,
      op.method,
      fillPath(op.path, fixture.pathValues),
      {
        ...fixture.headers,
        "content-type": takesRawBody(op) ? "application/octet-stream" : "application/json",
      },
      body,
    );

  it("every operation with a request body names its limit in bytes", () => {
    expect(withBody.length).toBeGreaterThan(15);
    for (const op of withBody) {
      const limit = limitOf(op);
      expect(Number.isSafeInteger(limit) && (limit as number) > 0, `${op.method} ${op.path}: ${limit}`).toBe(
        true,
      );
    }
    const limits = Object.fromEntries(withBody.map((op) => [`${op.method} ${op.path}`, limitOf(op)]));
    expect(limits).toMatchObject({
      "POST /v1/quote": BODY_LIMITS.json,
      "PATCH /v1/merchants/{id}": BODY_LIMITS.json,
      "POST /bridge/facilitator/settle": BODY_LIMITS.facilitator,
      "POST /api/b2b/pay-with-split": BODY_LIMITS.b2b,
      "POST /bridge/{provider}/{path}": BRIDGE_SWEEP_MAX_BODY,
    });
  });

  it("one byte over a route's limit is 413 payload_too_large and stores nothing; at the limit the body is read", async () => {
    for (const op of withBody) {
      const limit = limitOf(op) as number;
      const label = `${op.method} ${op.path}`;
      const writes = api.orderStoreWrites();
      expectProblem(`${label} over its limit`, await send(op, jsonOfSize(limit + 1)), "payload_too_large");
      expect(api.orderStoreWrites(), `${label} stored something`).toBe(writes);
      const at = await send(op, jsonOfSize(limit));
      expectNoServerError(`${label} at its limit`, at, op);
      expect(at.status, `${label} at its limit: ${at.text.slice(0, 200)}`).not.toBe(413);
    }
  });
});
