import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { AppError } from "@tollgate/shared";
import { TRPCError } from "@trpc/server";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createLogger } from "../infra/logger";
import { bodyParserError, sendProblem, toAppError } from "./errors";

describe("toAppError", () => {
  it("keeps AppErrors, maps zod and tRPC errors to codes, and everything else to internal_error", () => {
    const own = new AppError("quote_not_found");
    expect(toAppError(own)).toBe(own);
    const zod = toAppError(z.object({ slug: z.string() }).safeParse({}).error);
    expect(zod.code).toBe("validation_failed");
    expect(zod.errors).toContainEqual(expect.objectContaining({ path: "slug", code: "required" }));
    expect(toAppError(new TRPCError({ code: "FORBIDDEN" })).code).toBe("forbidden");
    expect(toAppError(new TRPCError({ code: "BAD_REQUEST", cause: own })).code).toBe("quote_not_found");
    const unknown = new Error("boom");
    expect(toAppError(unknown)).toMatchObject({ code: "internal_error", cause: unknown });
  });
});

describe("a path the router cannot decode", () => {
  it("is 400 malformed_request, while a URIError of our own stays a 500", () => {
    const router = Object.assign(new URIError("Failed to decode param '%zz'"), { status: 400 });
    expect(toAppError(router)).toMatchObject({ code: "malformed_request", status: 400 });
    expect(toAppError(new URIError("URI malformed")).code).toBe("internal_error");
  });
});

describe("database outages", () => {
  const wrapped = (code: string) =>
    Object.assign(new Error("Failed query"), { cause: Object.assign(new Error("db"), { code }) });
  it("are 503 service_unavailable with Retry-After, however the driver wraps them", () => {
    for (const error of [
      wrapped("53100"), // disk_full (PGlite and PostgreSQL)
      wrapped("57P01"), // admin_shutdown
      wrapped("08006"), // connection_failure
      Object.assign(new Error("closed"), { code: "CONNECTION_CLOSED" }), // postgres.js
      new AggregateError([Object.assign(new Error("refused"), { code: "ECONNREFUSED" })]),
    ]) {
      const mapped = toAppError(error);
      expect(mapped.code).toBe("service_unavailable");
      expect(mapped.headers?.["Retry-After"]).toBe("5");
    }
  });
  it("leave query errors (constraint, syntax) as internal errors", () => {
    expect(toAppError(wrapped("23505")).code).toBe("internal_error");
    expect(toAppError(wrapped("42P01")).code).toBe("internal_error");
  });
});

describe("bodyParserError", () => {
  it("maps body-parser failures to 4xx codes and leaves other errors alone", () => {
    expect(bodyParserError({ type: "entity.parse.failed" })?.code).toBe("malformed_json");
    expect(bodyParserError({ type: "entity.too.large", limit: 65_536 })?.message).toBe(
      "the body is larger than 64 KiB",
    );
    expect(bodyParserError({ type: "entity.too.large", limit: 5 * 1024 * 1024 })?.message).toMatch(/5 MiB/);
    expect(bodyParserError({ type: "entity.too.large", limit: 1000 })?.message).toMatch(/1000 bytes/);
    expect(bodyParserError({ type: "charset.unsupported" })?.code).toBe("unsupported_media_type");
    expect(bodyParserError(new Error("other"))).toBeUndefined();
    expect(bodyParserError(undefined)).toBeUndefined();
  });

  it("maps every other read failure to 4xx, inside toAppError itself", () => {
    // What body-parser raises for a corrupt gzip body: an http-errors 400 with no `type`.
    const zlib = Object.assign(new Error("incorrect header check"), {
      status: 400,
      statusCode: 400,
      expose: true,
    });
    expect(toAppError(zlib)).toMatchObject({ code: "malformed_body", status: 400 });
    expect(toAppError({ type: "encoding.unsupported", status: 415 }).code).toBe("unsupported_media_type");
    expect(toAppError({ type: "entity.utf8.invalid" }).code).toBe("malformed_body");
    expect(toAppError({ type: "entity.empty" }).code).toBe("body_required");
    expect(toAppError({ type: "request.aborted", status: 400, expose: true }).code).toBe("malformed_body");
    // An upstream error that merely carries a status (viem's HttpRequestError) is not a client error.
    expect(toAppError(Object.assign(new Error("rpc said 429"), { status: 429 })).code).toBe("internal_error");
  });
});

describe("sendProblem (the API's adapter to the shared writer)", () => {
  const lines: string[] = [];
  const log = createLogger(
    "info",
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.get("/refused", (_req, res) =>
      sendProblem(res, new AppError("order_not_found", "gone"), "req_a", { log }),
    );
    app.get("/broken", (_req, res) =>
      sendProblem(res, new Error("db password is hunter2"), "req_b", { log }),
    );
    app.get("/replayable", (_req, res) =>
      sendProblem(res, new AppError("upstream_failed"), "req_c", { extensions: { replayable: true } }),
    );
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("answers 4xx with their detail and logs nothing", async () => {
    const response = await fetch(`${base}/refused`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      code: "order_not_found",
      detail: "gone",
      request_id: "req_a",
    });
    expect(lines).toHaveLength(0);
  });

  it("answers anything else as a generic 500 and logs the cause with the request id", async () => {
    const response = await fetch(`${base}/broken`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toMatchObject({ code: "internal_error", detail: "Internal error" });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      request_id: "req_b",
      err: { message: "db password is hunter2" },
    });
  });

  it("passes extension members through", async () => {
    const response = await fetch(`${base}/replayable`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ code: "upstream_failed", replayable: true });
  });
});
