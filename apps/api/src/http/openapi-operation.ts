/**
 * The OpenAPI 3.1 operation of an endpoint, generated from the same zod schemas that validate it (./endpoint.ts):
 * parameters from the path, query and header schemas, the request body, each declared response and the problem
 * answers. Nothing about a plain endpoint is written by hand a second time.
 */
import { z } from "zod";
import { MAX_BODY_EXTENSION } from "./body";
import type { EndpointDefinition, RequestSpec, SecurityScheme } from "./endpoint";

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown>;

/** A zod schema as JSON Schema; what JSON Schema cannot say (a transform's output) is left open, never thrown. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** The `security` requirement of a scheme (SPEC §5); sessions also accept their bearer token form. */
export function securityOf(scheme: SecurityScheme | undefined): Record<string, string[]>[] {
  if (scheme === "adminSession") return [{ adminSession: [] }, { adminSessionToken: [] }];
  if (scheme === "userSession") return [{ userSession: [] }, { userSessionToken: [] }];
  if (scheme) return [{ [scheme]: [] }];
  return [];
}

export const problemRef = (status: number) => ({ $ref: `#/components/responses/Problem${status}` });

function parametersOf(location: "path" | "query" | "header", schema: z.ZodType | undefined): Operation[] {
  if (!schema) return [];
  const object = jsonSchemaOf(schema, "input");
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      in: location,
      name,
      required: location === "path" || required.has(name),
      schema: propertySchema,
      ...(typeof description === "string" ? { description } : {}),
    };
  });
}

function requestBodyOf(request: RequestSpec): Operation | undefined {
  if (request.body) {
    return {
      required: request.bodyRequired ?? true,
      content: { "application/json": { schema: jsonSchemaOf(request.body, "input") } },
      ...(request.bodyMaxBytes === undefined ? {} : { [MAX_BODY_EXTENSION]: request.bodyMaxBytes }),
    };
  }
  if (request.raw) {
    return {
      required: false,
      description: request.raw.description,
      content: { "*/*": { schema: {} } },
      ...(request.raw.maxBytes === undefined ? {} : { [MAX_BODY_EXTENSION]: request.raw.maxBytes }),
    };
  }
  return undefined;
}

function responsesOf(definition: EndpointDefinition<unknown>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(definition.responses)) {
    const headers = spec.headers
      ? Object.fromEntries(
          Object.entries(spec.headers).map(([name, description]) => [
            name,
            { description, schema: { type: "string" } },
          ]),
        )
      : undefined;
    const content = spec.problem
      ? { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } }
      : spec.body
        ? { "application/json": { schema: jsonSchemaOf(spec.body) } }
        : spec.content
          ? { [spec.content.type]: { schema: spec.content.schema ? jsonSchemaOf(spec.content.schema) : {} } }
          : undefined;
    responses[status] = {
      description: spec.description,
      ...(headers ? { headers } : {}),
      ...(content ? { content } : {}),
    };
  }
  for (const status of [...(definition.errors ?? []), 500]) responses[String(status)] ??= problemRef(status);
  return responses;
}

/** The operation object of `definition` for its path and method. */
export function operationOf(definition: EndpointDefinition<unknown>): Operation {
  const request = definition.request ?? {};
  const parameters = [
    ...parametersOf("path", request.params),
    ...parametersOf("query", request.query),
    ...parametersOf("header", request.headers),
  ];
  const requestBody = requestBodyOf(request);
  return {
    operationId: definition.operationId,
    tags: definition.tags,
    summary: definition.summary,
    ...(definition.description ? { description: definition.description } : {}),
    security: securityOf(definition.security),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: responsesOf(definition),
  };
}
