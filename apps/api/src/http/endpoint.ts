/**
 * The one way to declare a plain HTTP endpoint (docs/architecture.md "One endpoint path"): method, path, zod schemas
 * for what comes in and goes out, the problems it may answer, and a handler. From that one definition come the
 * request validation, the OpenAPI operation (./openapi-operation.ts) and, where a console needs it, a tRPC procedure
 * (../trpc/endpoint-procedure.ts). tRPC procedures published as REST are the other kind of endpoint; everything that
 * is not one is declared here.
 *
 * Steps, always in this order (DESIGN.md §7, §9): the endpoint's rate limit per client, declared headers, path and
 * query parameters, the JSON media type and body, the handler. Any throw becomes one problem+json answer through the
 * one problem writer; a 5xx is logged with its cause and never echoed.
 */
import type { AppError } from "@tollgate/shared";
import type { Request, Response } from "express";
import type { z } from "zod";
import type { Logger } from "../infra/logger";
import type { RateLimiter } from "../infra/rate-limit";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";
/** Security schemes of the OpenAPI document (SPEC §5). */
export type SecurityScheme = "merchantSecret" | "adminSession" | "userSession";

export interface ResponseSpec {
  description: string;
  /** The JSON body's schema (documentation; the handler's typed result is what is sent). */
  body?: z.ZodType;
  /** A body in another media type, e.g. Prometheus text. */
  content?: { type: string; schema?: z.ZodType };
  /** Response headers worth naming, with a description each. */
  headers?: Record<string, string>;
  /** The answer is a problem (application/problem+json) carrying extension members, e.g. a 402 challenge. */
  problem?: boolean;
}

type AnyObject = z.ZodType<Record<string, unknown>>;

export interface RequestSpec {
  params?: AnyObject;
  query?: AnyObject;
  /** Header names as published (matched case-insensitively); each property's `description` is published. */
  headers?: AnyObject;
  /** The problem a header that fails its schema answers (default 400 `validation_failed`). */
  headersProblem?: () => AppError;
  /** A JSON body (application/json, read by the API's JSON reader). */
  body?: z.ZodType;
  /** Whether a JSON body is required (default true when `body` is given). */
  bodyRequired?: boolean;
  /** The JSON body's limit in bytes (default `BODY_LIMITS.json`); published as `x-max-body-bytes`. */
  bodyMaxBytes?: number;
  /** A body forwarded as sent, never parsed here (the bridge, the hosted gateway). */
  raw?: { description: string; maxBytes: number | undefined };
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface EndpointInput<R extends RequestSpec> {
  params: Out<R["params"]>;
  query: Out<R["query"]>;
  headers: Out<R["headers"]>;
  body: Out<R["body"]>;
}

/** What a handler knows of the call, whether it came over HTTP or through tRPC. */
export interface CallContext {
  requestId: string;
  /** The client address as the proxy settings trust it. */
  ip: string;
  log: Logger;
  header(name: string): string | undefined;
  setHeader(name: string, value: string): void;
  /** The Express request and response; absent when the endpoint is called as a tRPC procedure. */
  http?: { req: Request; res: Response };
}

/** What a handler answers: JSON (the default), JSON text cached with an ETag, other text, or nothing (it wrote). */
export type Reply =
  | { kind: "json"; status: number; body: unknown; headers: Record<string, string> | undefined }
  | {
      kind: "cached";
      text: string;
      maxAgeSeconds: number;
      etag: string | undefined;
      headers: Record<string, string> | undefined;
    }
  | {
      kind: "text";
      status: number;
      text: string;
      contentType: string;
      headers: Record<string, string> | undefined;
    }
  | { kind: "written" };

export const reply = {
  json: (body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Reply => ({
    kind: "json",
    status: init.status ?? 200,
    body,
    headers: init.headers,
  }),
  /**
   * JSON text with a strong ETag and `public, max-age`; 304 when If-None-Match names it (RFC 9110 §13.1.2). A cached
   * body passes the tag it computed once.
   */
  cached: (
    text: string,
    maxAgeSeconds: number,
    init: { etag?: string; headers?: Record<string, string> } = {},
  ): Reply => ({ kind: "cached", text, maxAgeSeconds, etag: init.etag, headers: init.headers }),
  text: (
    text: string,
    contentType: string,
    init: { status?: number; headers?: Record<string, string> } = {},
  ): Reply => ({
    kind: "text",
    status: init.status ?? 200,
    text,
    contentType,
    headers: init.headers,
  }),
  /** The handler wrote the response itself (a forwarded upstream answer). */
  written: { kind: "written" } as Reply,
};

export interface EndpointDefinition<D, R extends RequestSpec = RequestSpec> {
  /** `all`: every method reaches the handler, which refuses what it does not serve (a forwarding route). */
  method: HttpMethod | "all";
  /** The methods the document lists for an `all` endpoint. */
  methods?: HttpMethod[];
  /** OpenAPI path template, e.g. `/v1/merchants/{id}/revocations`. */
  path: string;
  /** The Express route, where the template cannot say it (a provider's path of any depth). */
  route?: string;
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  /** Omitted: no authentication (published as `security: []`). */
  security?: SecurityScheme;
  request?: R;
  responses: Record<number, ResponseSpec>;
  /** Problem statuses it may answer besides 500. */
  errors?: number[];
  /** `no-store` on every answer the handler makes (not on cached replies). */
  noStore?: boolean;
  /** The client's budget for this endpoint, spent before anything else is read. */
  limiter?: (deps: D) => RateLimiter | undefined;
  handle(deps: D, input: EndpointInput<R>, call: CallContext): Promise<Reply> | Reply;
}

/** Declares an endpoint; the identity function that gives the definition its types. */
export function defineEndpoint<D, const R extends RequestSpec = RequestSpec>(
  definition: EndpointDefinition<D, R>,
): EndpointDefinition<D, R> {
  return definition;
}
