import type express from "express";
import { describe, expect, it } from "vitest";
import { requireDeclaredBodies, verifyUtf8 } from "./body";

describe("verifyUtf8", () => {
  const req = {} as Parameters<typeof verifyUtf8>[0];
  it("accepts valid UTF-8, astral characters included", () => {
    expect(() => verifyUtf8(req, undefined, Buffer.from('{"a":"é😀"}'), "utf-8")).not.toThrow();
  });
  it("refuses invalid UTF-8 and other charsets with typed errors", () => {
    expect(() => verifyUtf8(req, undefined, Buffer.from([0x22, 0xc3, 0x28, 0x22]), "utf-8")).toThrow(
      expect.objectContaining({ type: "entity.utf8.invalid" }),
    );
    // An encoded lone surrogate (CESU-style) is invalid UTF-8 too.
    expect(() => verifyUtf8(req, undefined, Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), "utf-8")).toThrow();
    expect(() => verifyUtf8(req, undefined, Buffer.from("{}"), "utf-16le")).toThrow(
      expect.objectContaining({ type: "entity.charset.not.utf8" }),
    );
  });
});

describe("requireDeclaredBodies", () => {
  const middleware = requireDeclaredBodies({
    "/v1/merchants/{id}": { patch: { requestBody: { required: true } }, get: {} },
    "/v1/merchants/{id}/secret/rotate": { post: {} },
  });
  function run(method: string, path: string, headers: Record<string, string> = {}): unknown {
    let passed: unknown = "not called";
    middleware(
      { method, path, headers } as unknown as express.Request,
      {} as express.Response,
      (error?: unknown) => {
        passed = error;
      },
    );
    return passed;
  }
  it("refuses a bodiless request where the document requires a body", () => {
    expect(run("PATCH", "/v1/merchants/mrch_1")).toMatchObject({ code: "body_required", status: 400 });
    expect(run("PATCH", "/v1/merchants/mrch_1", { "content-length": "0" })).toMatchObject({
      code: "body_required",
    });
  });
  it("lets through bodies, chunked bodies (checked when read) and operations without a required body", () => {
    expect(run("PATCH", "/v1/merchants/mrch_1", { "content-length": "2" })).toBeUndefined();
    expect(run("PATCH", "/v1/merchants/mrch_1", { "transfer-encoding": "chunked" })).toBeUndefined();
    expect(run("POST", "/v1/merchants/mrch_1/secret/rotate")).toBeUndefined();
    expect(run("GET", "/v1/merchants/mrch_1")).toBeUndefined();
    expect(run("PATCH", "/v1/merchants/a/b")).toBeUndefined();
  });
});
