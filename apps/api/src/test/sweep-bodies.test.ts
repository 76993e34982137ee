/**
 * Unreadable and missing bodies (docs/decisions/0014-hostile-input.md) swept over every operation in /openapi.json: a
 * body that cannot be read (a Content-Encoding other than identity, a charset other than UTF-8, invalid UTF-8) and a
 * missing required body are 4xx problem+json with a stable code and the request id, never a 500, never stored; /g
 * reads bodies the same way.
 */
import { deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_EXTENSION } from "../http/body";
import { storageDatabaseKinds } from "./harness";
import {
  bodySchema,
  createSweepFixture,
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

const JSON_BODY = new TextEncoder().encode('{"name":"Sweep Merchant"}');
// `"na\xC3\x28e"`: 0xC3 starts a two-byte sequence that 0x28 does not continue.
const INVALID_UTF8 = Uint8Array.from([...Buffer.from('{"name":"na'), 0xc3, 0x28, ...Buffer.from('e"}')]);

describe.each(storageDatabaseKinds("pglite"))("request bodies on every route (%s)", (kind) => {
  let api: SweepApi;
  let fixture: SweepFixture;
  let withBody: SweptOperation[];
  /** JSON bodies: read as UTF-8 JSON (raw bodies are forwarded as sent and never decoded). */
  let withJson: SweptOperation[];
  let required: SweptOperation[];

  beforeAll(async () => {
    api = await startSweepApi(kind);
    fixture = await createSweepFixture(api);
    const operations = await openApiOperations(api);
    withBody = operations.filter((op) => op.operation.requestBody);
    withJson = withBody.filter((op) => bodySchema(op));
    required = withBody.filter((op) => op.operation.requestBody?.required);
  });
  afterAll(async () => {
    await api?.close();
  });

  const target = (op: SweptOperation) => fillPath(op.path, fixture.pathValues);
  const headers = (extra: Record<string, string>) => ({ ...fixture.headers, ...extra });

  it("finds the body-reading routes in the document (the sweep is not empty)", () => {
    expect(withBody.map((op) => `${op.method} ${op.path}`)).toEqual(
      expect.arrayContaining([
        "POST /v1/quote",
        "PATCH /v1/merchants/{id}",
        "PUT /v1/merchants/{id}/gateway",
        "POST /bridge/{provider}/{path}",
        "POST /bridge/facilitator/verify",
        "POST /bridge/facilitator/settle",
      ]),
    );
    expect(required.length).toBeGreaterThan(3);
  });

  it("refuses every Content-Encoding but identity with 415, whether or not the body is really compressed", async () => {
    const bodies: [string, Uint8Array][] = [
      ["gzip", JSON_BODY],
      ["deflate", JSON_BODY],
      ["br", JSON_BODY],
      ["gzip", gzipSync(JSON_BODY)],
      ["deflate", deflateSync(JSON_BODY)],
      ["x-bogus", JSON_BODY],
    ];
    const writes = api.orderStoreWrites();
    for (const op of withBody) {
      for (const [encoding, body] of bodies) {
        const response = await sendRaw(
          api,
          op.method,
          target(op),
          headers({ "content-type": "application/json", "content-encoding": encoding }),
          body,
        );
        expectProblem(`${op.method} ${op.path} ${encoding}`, response, "unsupported_media_type");
      }
    }
    expect(api.orderStoreWrites()).toBe(writes);
  });

  it("refuses invalid UTF-8 with 400 malformed_body instead of storing U+FFFD", async () => {
    for (const op of withJson) {
      const response = await sendRaw(
        api,
        op.method,
        target(op),
        headers({ "content-type": "application/json" }),
        INVALID_UTF8,
      );
      expectProblem(`${op.method} ${op.path}`, response, "malformed_body");
    }
    const me = await api.call("GET", "/v1/merchants/me", { headers: fixture.headers });
    expect(JSON.stringify(me.json)).not.toContain("\ufffd");
  });

  it("refuses a JSON body in another charset with 415", async () => {
    for (const op of withJson) {
      const response = await sendRaw(
        api,
        op.method,
        target(op),
        headers({ "content-type": "application/json; charset=utf-16le" }),
        new Uint8Array(Buffer.from('{"name":"x"}', "utf16le")),
      );
      expectProblem(`${op.method} ${op.path}`, response, "unsupported_media_type");
    }
  });

  it("answers 400 body_required where the document requires a body and none (or an empty one) is sent", async () => {
    for (const op of required) {
      const none = await sendRaw(api, op.method, target(op), headers({}));
      expectProblem(`${op.method} ${op.path} no body`, none, "body_required");
      const empty = await sendRaw(
        api,
        op.method,
        target(op),
        headers({ "content-type": "application/json" }),
        new Uint8Array(),
      );
      expectProblem(`${op.method} ${op.path} empty body`, empty, "body_required");
    }
  });

  it("refuses an empty chunked body too (no Content-Length to look at)", async () => {
    const response = await fetch(`${api.baseUrl}/v1/merchants/${fixture.merchantId}`, {
      method: "PATCH",
      headers: headers({ "content-type": "application/json" }),
      body: new ReadableStream({
        start(controller) {
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    const text = await response.text();
    expectProblem(
      "chunked PATCH",
      { status: response.status, headers: response.headers, json: JSON.parse(text), text },
      "body_required",
    );
  });

  it("refuses a raw body over the limit with 413 and stores no order", async () => {
    const raw = withBody.filter(takesRawBody);
    expect(raw.length).toBeGreaterThan(0);
    const before = api.orderStoreWrites();
    for (const op of raw) {
      // Each raw body names its own limit (the bridge's and the gateway's differ).
      const limit = Number(op.operation.requestBody?.[MAX_BODY_EXTENSION]);
      expect(Number.isSafeInteger(limit), `${op.method} ${op.path} names its limit`).toBe(true);
      for (const type of ["application/json", "application/octet-stream", "text/plain"]) {
        const response = await sendRaw(
          api,
          op.method,
          target(op),
          headers({ "content-type": type }),
          new Uint8Array(limit + 1),
        );
        expectProblem(`${op.method} ${op.path} ${type} over the limit`, response, "payload_too_large");
      }
    }
    expect(api.orderStoreWrites()).toBe(before);
  });

  it("a PATCH that was refused changed nothing", async () => {
    const me = await api.call("GET", "/v1/merchants/me", { headers: fixture.headers });
    expect(me.json.name).toBe("Acme Search");
  });

  it("reads /g bodies the same way: a bad Content-Encoding is 415, not a 500", async () => {
    for (const encoding of ["gzip", "deflate", "br"]) {
      const response = await sendRaw(
        api,
        "POST",
        `/g/${fixture.slug}/anything`,
        { "content-type": "application/json", "content-encoding": encoding },
        JSON_BODY,
      );
      expectProblem(`/g ${encoding}`, response, "unsupported_media_type");
    }
  });
});
