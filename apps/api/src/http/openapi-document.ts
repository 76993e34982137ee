/**
 * The OpenAPI 3.1 document (SPEC §4, §9): generated from the procedures by trpc-to-openapi, then given our
 * success statuses and one problem+json error response shape (DESIGN.md §7) for every declared error status.
 */
import { ERROR_CODES, FIELD_ERROR_CODES, PROBLEM_CONTENT_TYPE } from "@tollgate/shared";
import type { AnyTRPCRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { restRoutes } from "../trpc/rest-adapter";
import type { BoundEndpoint } from "./bind-endpoint";
import { ACCEPTED_CONTENT_ENCODINGS, BODY_LIMITS, MAX_BODY_EXTENSION } from "./body";
import { operationOf } from "./openapi-operation";

export const API_VERSION = "5.3.0";

type Operation = { responses?: Record<string, unknown>; security?: unknown[] } & Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  400: "The request is malformed or breaks a rule; `errors` names each failing field",
  401: "Missing or invalid credentials",
  403: "Authenticated but not allowed",
  404: "No such resource",
  405: "The method is not allowed here; see Allow",
  409: "Conflicts with the current state",
  413: "Body too large: over the operation's `x-max-body-bytes`",
  415: "Body is not application/json, or has a Content-Encoding other than identity",
  422: "Idempotency key reused with a different request",
  429: "Rate limit exceeded; see Retry-After",
  425: "Payment seen but not confirmed yet; retry after Retry-After",
  500: "Internal error (no details are exposed)",
  502: "The upstream failed; the payment was not used",
  503: "A dependency is unavailable; retry later",
  504: "The upstream did not answer in time; the payment was not used",
};

/** How request bodies are read (./body.ts); also in `x-accepted-content-encodings`. */
const REQUEST_BODY_RULES =
  "Request bodies: `Content-Encoding` must be absent or `identity` (anything else is 415 `unsupported_media_type`); JSON bodies are UTF-8 (invalid UTF-8 is 400 `malformed_body`, never repaired); an operation whose `requestBody` is required answers 400 `body_required` when the body is missing or empty; every request body names its size limit in bytes as `x-max-body-bytes`, and one byte more is 413 `payload_too_large`. Query and path integers are plain decimal digits in the documented range. Stored text refuses control characters (C0, DEL, C1), lone surrogates and U+FFFE/U+FFFF (`invalid_characters`); stored names refuse `__proto__` and other `Object.prototype` member names (`reserved_name`).";

type SchemaObject = NonNullable<NonNullable<OpenAPIObject["components"]>["schemas"]>[string];

const problemSchema: SchemaObject = {
  type: "object",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: {
      type: "string",
      format: "uri-reference",
      description: "link to the code's entry in /docs/errors",
    },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", enum: [...ERROR_CODES] },
    request_id: { type: "string" },
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "code", "message"],
        properties: {
          path: { type: "string", description: "dotted path of the failing field" },
          code: { type: "string", enum: [...FIELD_ERROR_CODES] },
          message: { type: "string" },
        },
      },
    },
  },
};

/** Endpoints mounted under one prefix ("" at the root, "/bridge", "/g"). */
export interface EndpointMount {
  prefix: string;
  endpoints: readonly BoundEndpoint[];
}

/**
 * The path items of declared endpoints mounted at `prefix`: one operation per method (an `all` endpoint lists the
 * methods it documents, its operation id suffixed with each).
 */
export function endpointPaths(
  endpoints: readonly BoundEndpoint[],
  prefix = "",
): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { definition } of endpoints) {
    const operation = operationOf(definition);
    const path = `${prefix}${definition.path}`;
    paths[path] ??= {};
    const item = paths[path];
    if (definition.method !== "all") item[definition.method] = operation;
    else
      for (const method of definition.methods ?? ["get"]) {
        // A GET carries no body (RFC 9110 §9.3.1): its operation documents none.
        const { requestBody, ...rest } = operation;
        item[method] = {
          ...(method === "get" ? rest : { ...rest, requestBody }),
          operationId: `${definition.operationId}-${method}`,
        };
      }
  }
  return paths;
}

export function buildOpenApiDocument(
  router: AnyTRPCRouter,
  baseUrl: string,
  mounts: readonly EndpointMount[] = [],
): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Tollgate API",
    version: API_VERSION,
    description:
      "HTTP 402 payment gate for AI agents. Errors are application/problem+json with a stable `code`. Money is never a JSON number.\n\n" +
      REQUEST_BODY_RULES,
    baseUrl,
    securitySchemes: {
      merchantSecret: {
        type: "http",
        scheme: "bearer",
        description: "Authorization: Bearer msec_... (the merchant secret)",
      },
      adminSession: {
        type: "apiKey",
        in: "cookie",
        name: "tollgate_admin",
        description:
          "The operator session cookie set by POST /api/admin/login (`__Host-tollgate_admin` over https). State-changing requests also send `x-tollgate-csrf: 1`.",
      },
      adminSessionToken: {
        type: "http",
        scheme: "bearer",
        description: "Authorization: Bearer ases_... (an operator session started with `session: bearer`)",
      },
      userSession: {
        type: "apiKey",
        in: "cookie",
        name: "tollgate_user",
        description:
          "The user session cookie set by POST /api/user/login after a wallet signature (`__Host-tollgate_user` over https). State-changing requests made with the cookie also send `x-tollgate-csrf: 1`. See docs/users.md.",
      },
      userSessionToken: {
        type: "http",
        scheme: "bearer",
        description: "Authorization: Bearer usr_... (the `token` POST /api/user/login returns; for agents)",
      },
    },
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, Problem: problemSchema },
    responses: {
      ...document.components?.responses,
      ...Object.fromEntries(
        Object.entries(STATUS_TEXT).map(([status, description]) => [
          `Problem${status}`,
          {
            description,
            content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
          },
        ]),
      ),
    },
  };
  for (const route of restRoutes(router)) {
    const operation = document.paths?.[route.path]?.[route.method.toLowerCase() as "get"] as
      | Operation
      | undefined;
    if (!operation?.responses) continue;
    const success = operation.responses["200"];
    const declared = route.meta.openapi?.errorResponses;
    const statuses = Array.isArray(declared) ? declared : Object.keys(declared ?? {}).map(Number);
    operation.responses = {
      [String(route.meta.rest?.status ?? 200)]: success,
      ...Object.fromEntries(
        [...statuses, 500].map((status) => [
          String(status),
          { $ref: `#/components/responses/Problem${status}` },
        ]),
      ),
    };
    const scheme = route.meta.security ?? (route.meta.openapi?.protect ? "merchantSecret" : undefined);
    if (scheme === "adminSession") operation.security = [{ adminSession: [] }, { adminSessionToken: [] }];
    else if (scheme === "userSession") operation.security = [{ userSession: [] }, { userSessionToken: [] }];
    else if (scheme) operation.security = [{ [scheme]: [] }];
    else delete operation.security;
  }
  (document as unknown as Record<string, unknown>)["x-accepted-content-encodings"] = [
    ...ACCEPTED_CONTENT_ENCODINGS,
  ];
  document.paths ??= {};
  for (const mount of mounts) {
    for (const [path, item] of Object.entries(endpointPaths(mount.endpoints, mount.prefix)))
      document.paths[path] = { ...document.paths[path], ...item };
  }
  publishBodyLimits(document.paths);
  return document;
}

/**
 * Every request body names its limit. Operations that did not declare one are read by the API's JSON reader
 * (`BODY_LIMITS.json`); the bridge's, the gateway's and b2b's declare their own. Copies, never mutates shared
 * definitions.
 */
function publishBodyLimits(paths: NonNullable<OpenAPIObject["paths"]>): void {
  for (const item of Object.values(paths)) {
    const operations = item as Record<string, { requestBody?: Record<string, unknown> } | undefined>;
    for (const [method, operation] of Object.entries(operations)) {
      const body = operation?.requestBody;
      if (!operation || !body || typeof body !== "object" || MAX_BODY_EXTENSION in body) continue;
      operations[method] = { ...operation, requestBody: { ...body, [MAX_BODY_EXTENSION]: BODY_LIMITS.json } };
    }
  }
}
