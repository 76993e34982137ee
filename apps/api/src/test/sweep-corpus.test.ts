/**
 * A corpus of malformed requests built from /openapi.json for every operation: wrong body types, huge
 * bodies, deep JSON, NUL bytes outside strings, unknown content types, numbers where money strings belong,
 * prototype keys, duplicate keys, oversized headers, a hostile request id, path traversal and hostile queries.
 * Every answer is a 4xx problem+json with a stable code where the request is malformed, never a 5xx or a hang,
 * and nothing is stored.
 */
import {
  adminSessions,
  auditEvents,
  gatewayRoutes,
  listings,
  merchants,
  merchantTiers,
  partners,
  quotes,
  receipts,
  servicePauses,
  webhookEndpoints,
  webhookEvents,
} from "@tollgate/db";
import { parseRawResponse, rawExchange } from "@tollgate/shared/raw-http";
import { count } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testAgent } from "../modules/identity/testing";
import { bearer, storageDatabaseKinds } from "./harness";
import {
  answersChallenge,
  bodySchema,
  createSweepFixture,
  expectNoServerError,
  expectProblem,
  fillPath,
  headersFor,
  openApiOperations,
  parameters,
  type SweepApi,
  type SweepFixture,
  type SweptOperation,
  sampleValue,
  sendRaw,
  startSweepApi,
  stringFields,
  withValue,
} from "./sweep";

const encode = (text: string) => new TextEncoder().encode(text);
const TABLES = {
  adminSessions,
  auditEvents,
  gatewayRoutes,
  listings,
  merchants,
  merchantTiers,
  partners,
  quotes,
  receipts,
  servicePauses,
  webhookEndpoints,
  webhookEvents,
};
/** Malformed values for every header parameter an operation declares (the bridge's proof headers). */
const MALFORMED_HEADERS = [
  "",
  "x",
  "%00",
  "\u00ff\u00fe\u0080", // obs-text: Node hands these bytes over as Latin-1
  "a".repeat(8 * 1024),
  `0x${"g".repeat(64)}`,
  `0x${"0".repeat(63)}`,
  `ord_${"0".repeat(16)}`, // an order id's shape, never issued
  Buffer.from("not json").toString("base64"),
  Buffer.from("[]").toString("base64"),
  Buffer.from('{"x402Version":1}').toString("base64"),
  Buffer.from('{"__proto__":{"polluted":true},"x402Version":2}').toString("base64"),
];
/** Field names whose string values are money: a JSON number there must be refused, never rounded. */
const MONEY_FIELD = /(amount|price|usd|tiers?\.|value)$/i;

describe.each(storageDatabaseKinds("postgres"))("hostile-input corpus over every route (%s)", (kind) => {
  let api: SweepApi;
  let fixture: SweepFixture;
  let operations: SweptOperation[];
  let sent = 0;

  beforeAll(async () => {
    // Rate limits would turn the corpus into 429s and hide what the routes themselves answer.
    api = await startSweepApi(kind, {
      RATE_LIMIT_PUBLIC_PER_MINUTE: "1000000",
      RATE_LIMIT_QUOTES_PER_MINUTE: "1000000",
      RATE_LIMIT_PAYS_PER_MINUTE: "1000000",
      IDENTITY_NONCES_PER_MINUTE: "1000000",
    });
    fixture = await createSweepFixture(api, "corpus");
    operations = await openApiOperations(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function rowCounts(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const [name, table] of Object.entries(TABLES)) {
      const [row] = await api.deps.db.db.select({ n: count() }).from(table);
      counts[name] = Number(row?.n ?? 0);
    }
    // The bridge stores orders and claims outside the database (memory here, Redis in production).
    counts.bridgeOrderStoreWrites = api.orderStoreWrites();
    return counts;
  }

  async function send(op: SweptOperation, body: Uint8Array | undefined, extra: Record<string, string> = {}) {
    sent++;
    return sendRaw(
      api,
      op.method,
      fillPath(op.path, fixture.pathValues),
      { ...headersFor(op, fixture), "content-type": "application/json", ...extra },
      body,
    );
  }

  const label = (op: SweptOperation, what: string) => `${op.method} ${op.path} ${what}`;

  it("answers every malformed body with a 4xx problem+json and stores nothing", async () => {
    const before = await rowCounts();
    const withBody = operations.filter((op) => bodySchema(op));
    expect(withBody.length).toBeGreaterThan(15);
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    const huge = `{"name":"${"a".repeat(2 * 1024 * 1024)}"}`;
    for (const op of withBody) {
      const malformed: [string, string, Record<string, string>?][] = [
        ["an array body", "[]"],
        ["a string body", '"sweep"'],
        ["a number body", "42"],
        ["a null body", "null"],
        ["20,000 nested arrays", deep],
        ["a 2 MiB body", huge],
        ["a NUL byte outside strings", '{"name":\u0000"x"}'],
        ["truncated JSON", '{"name":"x"'],
        ["text/plain", '{"name":"x"}', { "content-type": "text/plain" }],
        ["application/xml", "<name>x</name>", { "content-type": "application/xml" }],
        ["a form body", "name=x", { "content-type": "application/x-www-form-urlencoded" }],
      ];
      for (const [what, text, extra] of malformed) {
        expectProblem(label(op, what), await send(op, encode(text), extra));
      }
    }
    expect(await rowCounts()).toEqual(before);
  });

  it("refuses a JSON number where a money string belongs, and wrong types in every field", async () => {
    const before = await rowCounts();
    for (const op of operations.filter((o) => bodySchema(o))) {
      const schema = bodySchema(op);
      const base = sampleValue(schema, "", fixture);
      for (const field of stringFields(schema).slice(0, 12)) {
        const dotted = field.path.join(".");
        for (const wrong of [0.001, 1e21, true, ["x"], { x: 1 }]) {
          const response = await send(op, encode(JSON.stringify(withValue(base, field.path, wrong))));
          if (MONEY_FIELD.test(dotted) && typeof wrong === "number")
            expectProblem(label(op, dotted), response);
          else expectNoServerError(label(op, `${dotted}=${JSON.stringify(wrong)}`), response, op);
        }
      }
    }
    // Money and wrong types never create anything the valid base body would not have created: no 2xx here.
    const after = await rowCounts();
    expect(after.quotes).toBe(before.quotes);
    expect(after.receipts).toBe(before.receipts);
  });

  it("never answers 5xx to prototype keys or duplicate keys in a body", async () => {
    for (const op of operations.filter((o) => bodySchema(o))) {
      const base = JSON.stringify(sampleValue(bodySchema(op), "", fixture)).slice(1, -1);
      const comma = base ? "," : "";
      const bodies = [
        `{"__proto__":{"polluted":true}${comma}${base}}`,
        `{"constructor":{"prototype":{"polluted":true}}${comma}${base}}`,
        `{${base}${comma}"__proto__":[]}`,
        `{${base}${comma}${base}}`,
        `{"name":"first","name":"second"${comma}${base}}`,
      ];
      for (const body of bodies)
        expectNoServerError(label(op, body.slice(0, 40)), await send(op, encode(body)), op);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("answers oversized headers 431 and never echoes a hostile request id, on every route", async () => {
    for (const op of operations) {
      const big = await send(op, undefined, { "x-padding": "a".repeat(17 * 1024) });
      expectProblem(label(op, "17 KiB header"), big, "request_header_too_large");
      const hostileId = "<script>alert(1)</script>";
      const echoed = await send(op, undefined, { "x-request-id": hostileId });
      expectNoServerError(label(op, "hostile request id"), echoed, op);
      expect(echoed.headers.get("x-request-id")).not.toBe(hostileId);
      expect(echoed.text).not.toContain("<script>");
    }
  });

  it("answers every malformed header parameter without a 5xx, and a malformed proof with a 4xx problem, storing nothing", async () => {
    const before = await rowCounts();
    const withHeaders = operations.filter((op) => parameters(op, "header").length > 0);
    expect(withHeaders.map((op) => `${op.method} ${op.path}`)).toContain("POST /bridge/{provider}/{path}");
    for (const op of withHeaders) {
      // The header parameters of a paid call are payment proofs: a malformed one is refused, never challenged.
      const proofs = answersChallenge(op);
      for (const { name } of parameters(op, "header")) {
        for (const value of MALFORMED_HEADERS) {
          const response = await send(op, undefined, { [name]: value });
          const what = label(op, `${name}: ${JSON.stringify(value.slice(0, 24))}`);
          if (proofs) expectProblem(what, response);
          else expectNoServerError(what, response, op);
        }
      }
      if (!parameters(op, "header").some((parameter) => parameter.name === "x-tx-hash")) continue;
      // Legacy proofs: a well-formed transaction hash for an order never issued, a short hash, a Solana proof.
      const hash = `0x${"ab".repeat(32)}`;
      const pairs: [Record<string, string>, string][] = [
        [{ "x-tx-hash": hash, "x-order-id": `ord_${"0".repeat(16)}` }, "order_not_found"],
        [{ "x-tx-hash": "0x12", "x-order-id": `ord_${"0".repeat(16)}` }, "validation_failed"],
        [{ "x-solana-tx": "x" }, "solana_settlement_disabled"],
      ];
      for (const [headers, code] of pairs)
        expectProblem(label(op, JSON.stringify(headers)), await send(op, undefined, headers), code);
    }
    expect(await rowCounts()).toEqual(before);
  });

  it("never answers 5xx to path traversal or hostile values in path and query parameters", async () => {
    const traversals = [
      "..",
      "../../etc/passwd",
      "%2e%2e%2f%2e%2e",
      "..%2f..%2f",
      "%00",
      "a%0d%0aSet-Cookie:x=1",
      "%zz",
      "%",
      "%C3%28", // invalid UTF-8, percent-encoded
      "%E0%80%AF", // an overlong "/"
    ];
    for (const op of operations) {
      for (const traversal of traversals) {
        if (!op.path.includes("{")) break;
        const path = op.path.replace(/\{\w+\}/g, traversal);
        sent++;
        const response = await sendRaw(api, op.method, path, headersFor(op, fixture));
        expectNoServerError(label(op, `path ${traversal}`), response, op);
        expect(response.headers.get("set-cookie") ?? "").not.toContain("x=1");
      }
      const query = parameters(op, "query").map((parameter) => parameter.name);
      const hostileQuery = [...query, "__proto__", "constructor"]
        .flatMap((name) => [`${name}=1`, `${name}=x`, `${name}[]=a`, `${name}=%00`])
        .join("&");
      sent++;
      const response = await sendRaw(
        api,
        op.method,
        `${fillPath(op.path, fixture.pathValues)}?${hostileQuery}`,
        headersFor(op, fixture),
      );
      expectNoServerError(label(op, "hostile query"), response, op);
    }
  });

  it("edges: metrics credentials, unknown tRPC procedures, Host-less requests and nonces not of our form", async () => {
    // /api/metrics: only an operator session or METRICS_TOKEN (none is configured here).
    for (const headers of [{}, bearer("not-the-metrics-token-000000000"), { authorization: "Basic eDp5" }]) {
      sent++;
      expectProblem(
        "GET /api/metrics",
        await sendRaw(api, "GET", "/api/metrics", headers),
        "metrics_auth_required",
      );
    }
    // An unknown tRPC procedure is a problem like any unknown path, whatever the method or batch.
    for (const path of [
      "/trpc/no.such",
      "/trpc/merchant.get,no.such?batch=1",
      "/trpc/%zz",
      "/trpc/constructor",
    ]) {
      for (const method of ["GET", "POST"]) {
        sent++;
        expectProblem(`${method} ${path}`, await sendRaw(api, method, path, {}), "not_found");
      }
    }
    // HTTP/1.1 without exactly one non-empty Host, on every route: a problem, never Node's empty 400.
    for (const op of operations) {
      const path = fillPath(op.path, fixture.pathValues);
      for (const host of ["", "Host:\r\n", "Host: a\r\nHost: b\r\n"]) {
        sent++;
        const raw = await rawExchange(
          api.baseUrl,
          `${op.method.toUpperCase()} ${path} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`,
        );
        const response = parseRawResponse(raw);
        expect(response.status, label(op, `Host ${JSON.stringify(host)}`)).toBe(400);
        expect(response.headers.get("content-type"), raw).toContain("application/problem+json");
        expect(response.body.code, raw).toBe("malformed_request");
      }
    }
    // Identity-gated routes: a nonce not of our form is an unknown nonce, 402 problem with a fresh one.
    const gated = operations.filter((op) => parameters(op, "header").some(({ name }) => name === "x-nonce"));
    expect(gated.length).toBeGreaterThan(0);
    const agent = testAgent();
    for (const op of gated) {
      for (const nonce of ["", "0OIl", "a".repeat(200), "%00", "\u00ff"]) {
        sent++;
        const response = await sendRaw(
          api,
          op.method,
          fillPath(op.path, fixture.pathValues),
          agent.headers(nonce),
        );
        expect(response.status, label(op, `x-nonce ${JSON.stringify(nonce)}`)).toBe(402);
        expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(response.json.code).toBe("identity_nonce_invalid");
        expect(response.headers.get("x-nonce")).toBeTruthy();
      }
    }
  });

  it("sent a corpus of at least 300 requests", () => {
    // The size goes to the run's output: docs/testing.md and the stop notes quote it.
    console.info(`hostile-input corpus (${kind}): ${sent} requests over ${operations.length} operations`);
    expect(sent).toBeGreaterThanOrEqual(300);
  });
});
