/**
 * OpenAPI operations for the bridge and /api/b2b routes (plain Express routers; DESIGN.md §2 wants them described).
 * The 402 challenge body and the x402 headers are documented in docs/bridge.md; here they are named and linked.
 */
import { z } from "zod";
import { BODY_LIMITS, MAX_BODY_EXTENSION } from "../../http/body";
import { QuoteSplitSchema } from "./b2b";

const problem = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });
const challenge = {
  description:
    "Payment Required: SPEC §2.6 body (error, protocol, facilitator, pay_matic, retry.legacy_pay_matic) plus x402 v1 `x402Version`/`accepts`, and the v2 `PAYMENT-REQUIRED` header (base64 JSON). See docs/bridge.md.",
  headers: {
    "PAYMENT-REQUIRED": { schema: { type: "string" }, description: "x402 v2 PaymentRequired, base64 JSON" },
  },
  content: { "application/json": { schema: { type: "object" } } },
};

const paidCall = (method: string, maxBodyBytes: number | undefined) => ({
  operationId: `bridge-${method}`,
  tags: ["bridge"],
  summary: `Call a provider through the bridge (${method.toUpperCase()})`,
  description:
    "Without proof: 402 challenge with a one-time order bound to method, path and body. Retry with `x-tx-hash` + `x-order-id` (legacy pay_matic), `X-PAYMENT` (x402 v1) or `PAYMENT-SIGNATURE` (x402 v2). Upstream 5xx or network error: 502, no answer in time: 504, upstream 401/402/403: 503; in each case the payment stays usable.",
  parameters: [
    { in: "path", name: "provider", required: true, schema: { type: "string" } },
    {
      in: "path",
      name: "path",
      required: true,
      schema: { type: "string" },
      description: "the provider path",
    },
    { in: "header", name: "x-tx-hash", schema: { type: "string" } },
    { in: "header", name: "x-order-id", schema: { type: "string" } },
    { in: "header", name: "X-PAYMENT", schema: { type: "string" } },
    { in: "header", name: "PAYMENT-SIGNATURE", schema: { type: "string" } },
  ],
  // Any media type: the body is bound to the order and forwarded as sent (identity encoding only, up to
  // BRIDGE_MAX_BODY_BYTES), so it is never parsed here.
  ...(method === "post"
    ? {
        requestBody: {
          required: false,
          description: "Forwarded to the provider byte for byte; bound to the order by its hash.",
          content: { "*/*": { schema: {} } },
          ...(maxBodyBytes === undefined ? {} : { [MAX_BODY_EXTENSION]: maxBodyBytes }),
        },
      }
    : {}),
  responses: {
    "200": {
      description: "The provider's response",
      headers: {
        "x-payment-receipt": { schema: { type: "string" } },
        "X-PAYMENT-RESPONSE": { schema: { type: "string" } },
        "PAYMENT-RESPONSE": { schema: { type: "string" } },
      },
    },
    "400": problem(400),
    "402": challenge,
    "404": problem(404),
    "409": problem(409),
    "413": problem(413),
    "422": problem(422),
    "425": problem(425),
    "429": problem(429),
    "500": problem(500),
    "502": problem(502),
    "503": problem(503),
    "504": problem(504),
  },
});

const facilitator = (name: string, method: "get" | "post") => ({
  [method]: {
    operationId: `facilitator-${name}`,
    tags: ["bridge"],
    summary: `x402 facilitator /${name}`,
    description: "The x402 facilitator wire format (x402-wire notes e.5).",
    ...(method === "post"
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { type: "object" } } },
            [MAX_BODY_EXTENSION]: BODY_LIMITS.facilitator,
          },
        }
      : {}),
    responses: {
      "200": { description: "x402 format", content: { "application/json": { schema: { type: "object" } } } },
      "400": problem(400),
      "500": problem(500),
    },
  },
});

/** Both b2b operations answer the same way (legs and call, or a problem). */
const b2bResponses = {
  "200": {
    description: "legs and call",
    content: { "application/json": { schema: { type: "object" } } },
  },
  "400": problem(400),
  "409": problem(409),
  "500": problem(500),
  "503": problem(503),
};

/**
 * Path items to merge into the OpenAPI document; bridge paths only when the bridge is mounted (at `prefix`), its paid
 * bodies limited to `maxBodyBytes` (BRIDGE_MAX_BODY_BYTES).
 */
export function bridgeOpenApiPaths(
  prefix: string | undefined,
  maxBodyBytes?: number,
): Record<string, Record<string, unknown>> {
  const b2b = {
    "/api/b2b/quote-split": {
      get: {
        operationId: "b2b-quote-split",
        tags: ["b2b"],
        summary: "v1.2 fee-on-top legs of a price, and the splitter call that pays them",
        parameters: Object.entries(
          (z.toJSONSchema(QuoteSplitSchema, { io: "input" }).properties ?? {}) as Record<string, object>,
        ).map(([name, schema]) => ({
          in: "query",
          name,
          schema,
          required: name === "merchant" || name === "price",
        })),
        responses: b2bResponses,
      },
    },
    "/api/b2b/pay-with-split": {
      post: {
        operationId: "b2b-pay-with-split",
        tags: ["b2b"],
        summary: "The same as quote-split, with the parameters in a JSON body",
        requestBody: {
          required: true,
          content: { "application/json": { schema: z.toJSONSchema(QuoteSplitSchema, { io: "input" }) } },
          [MAX_BODY_EXTENSION]: BODY_LIMITS.b2b,
        },
        responses: b2bResponses,
      },
    },
  };
  return prefix === undefined ? b2b : { ...b2b, ...bridgeRouterPaths(prefix, maxBodyBytes) };
}

/**
 * The bridge router's own operations, mounted at `prefix` ("" when it serves alone, server.ts). Both mounts derive
 * their required-body rule (`requireDeclaredBodies`) from these, so the rule cannot differ between them.
 */
export function bridgeRouterPaths(
  prefix: string,
  maxBodyBytes?: number,
): Record<string, Record<string, unknown>> {
  return {
    [`${prefix}/{provider}/{path}`]: {
      get: paidCall("get", maxBodyBytes),
      post: paidCall("post", maxBodyBytes),
    },
    [`${prefix}/.well-known/x402.json`]: {
      get: {
        operationId: "bridge-discovery",
        tags: ["bridge"],
        summary: "Describes the bridge (providers, rails); the provider pinger reads it",
        responses: {
          "200": {
            description: "discovery document",
            content: { "application/json": { schema: { type: "object" } } },
          },
          "500": problem(500),
        },
      },
    },
    [`${prefix}/facilitator/supported`]: facilitator("supported", "get"),
    [`${prefix}/facilitator/verify`]: facilitator("verify", "post"),
    [`${prefix}/facilitator/settle`]: facilitator("settle", "post"),
  };
}
