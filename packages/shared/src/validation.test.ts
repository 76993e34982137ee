import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldErrorsFromZod } from "./validation";

function errorsOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected a failure");
  return fieldErrorsFromZod(result.error);
}

describe("fieldErrorsFromZod", () => {
  const body = z.strictObject({
    name: z.string().min(3).max(5),
    email: z.email().optional(),
    nested: z.strictObject({ list: z.array(z.number()) }).optional(),
    mode: z.enum(["a", "b"]).optional(),
  });

  it("tells a missing field (required) from a wrong type (invalid_type)", () => {
    expect(errorsOf(body, {})).toEqual([{ path: "name", code: "required", message: expect.any(String) }]);
    expect(errorsOf(body, { name: 3 })).toEqual([
      { path: "name", code: "invalid_type", message: expect.any(String) },
    ]);
    expect(errorsOf(body, { name: null })).toEqual([
      { path: "name", code: "invalid_type", message: expect.any(String) },
    ]);
  });

  it("maps sizes, formats and enums", () => {
    expect(errorsOf(body, { name: "ab" }).map((e) => [e.path, e.code])).toEqual([["name", "too_short"]]);
    expect(errorsOf(body, { name: "abcdef" }).map((e) => [e.path, e.code])).toEqual([["name", "too_long"]]);
    expect(errorsOf(body, { name: "abc", email: "nope" }).map((e) => [e.path, e.code])).toEqual([
      ["email", "invalid_format"],
    ]);
    expect(errorsOf(body, { name: "abc", mode: "c" }).map((e) => [e.path, e.code])).toEqual([
      ["mode", "invalid_value"],
    ]);
  });

  it("reports one unknown_field per unknown key, with nested paths and array indices", () => {
    expect(errorsOf(body, { name: "abc", x: 1, y: 2 }).map((e) => [e.path, e.code])).toEqual([
      ["x", "unknown_field"],
      ["y", "unknown_field"],
    ]);
    expect(errorsOf(body, { name: "abc", nested: { list: [1], z: 1 } }).map((e) => [e.path, e.code])).toEqual(
      [["nested.z", "unknown_field"]],
    );
    expect(errorsOf(body, { name: "abc", nested: { list: [1, "2"] } }).map((e) => [e.path, e.code])).toEqual([
      ["nested.list.1", "invalid_type"],
    ]);
  });

  it("uses the field code carried by custom issues, and invalid_value otherwise", () => {
    const custom = (params?: Record<string, unknown>) =>
      z.string().superRefine((_value, ctx) => {
        ctx.addIssue({ code: "custom", message: "custom message", ...(params ? { params } : {}) });
      });
    expect(errorsOf(custom({ fieldCode: "burn_address" }), "x")).toEqual([
      { path: "", code: "burn_address", message: "custom message" },
    ]);
    expect(errorsOf(custom({ fieldCode: "no_such_code" }), "x")[0]?.code).toBe("invalid_value");
    expect(errorsOf(custom({ fieldCode: "toString" }), "x")[0]?.code).toBe("invalid_value");
    expect(errorsOf(custom(), "x")[0]?.code).toBe("invalid_value");
    expect(
      errorsOf(
        z.string().refine(() => false),
        "x",
      )[0]?.code,
    ).toBe("invalid_value");
  });

  it("keeps the whole-body path empty", () => {
    expect(errorsOf(body, "not an object").map((e) => [e.path, e.code])).toEqual([["", "invalid_type"]]);
    expect(errorsOf(body, undefined).map((e) => [e.path, e.code])).toEqual([["", "required"]]);
  });
});
