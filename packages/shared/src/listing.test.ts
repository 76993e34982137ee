import { describe, expect, it } from "vitest";
import { listingRouteProblem, ZCreateListingInput, ZListingJsonSchema } from "./listing";

describe("listingRouteProblem (SPEC §2.3 route)", () => {
  it.each([
    "/",
    "/v1/search",
    "/users/:id",
    "/a-b_c.d~e/f;g=h@i",
    "/caf%C3%A9",
    "/...hidden",
    `/${"a".repeat(199)}`,
  ])("accepts %s", (route) => {
    expect(listingRouteProblem(route)).toBeUndefined();
  });

  it.each([
    ["", "invalid_format"],
    ["v1/search", "invalid_format"],
    ["//evil.example/x", "invalid_format"],
    ["/a/../b", "invalid_format"],
    ["/a/./b", "invalid_format"],
    ["/..", "invalid_format"],
    ["/a/%2E%2e/b", "invalid_format"],
    ["/a%2Fb", "invalid_format"],
    ["/a%5Cb", "invalid_format"],
    ["/a%00b", "invalid_format"],
    ["/a%", "invalid_format"],
    ["/a%ff", "invalid_format"],
    ["/a b", "invalid_format"],
    ["/a?b=1", "invalid_format"],
    ["/a#b", "invalid_format"],
    ["/a\\b", "invalid_format"],
    ["/<script>", "invalid_format"],
    ["/a\u0000", "invalid_characters"],
    ["/a\u2028", "invalid_format"],
    [`/${"a".repeat(200)}`, "too_long"],
  ])("refuses %j with %s", (route, code) => {
    expect(listingRouteProblem(route)?.code).toBe(code);
  });
});

describe("ZListingJsonSchema", () => {
  it("accepts a JSON Schema object and keeps it as is", () => {
    const schema = { type: "object", properties: { q: { type: "string", maxLength: 10 } }, required: ["q"] };
    expect(ZListingJsonSchema.parse(schema)).toEqual(schema);
  });

  it.each([
    ["an array", [1]],
    ["a string", "{}"],
    ["null", null],
    ["__proto__ as an own key", JSON.parse('{"a":{"__proto__":{"x":1}}}')],
    ["constructor", { properties: { constructor: {} } }],
    ["a control character in a string", { description: "a\u0000b" }],
    ["depth over 12", JSON.parse(`${'{"a":'.repeat(14)}1${"}".repeat(14)}`)],
    ["over 8 KiB", { description: "x".repeat(8200) }],
  ])("refuses %s", (_name, value) => {
    expect(ZListingJsonSchema.safeParse(value).success).toBe(false);
  });
});

describe("ZCreateListingInput", () => {
  it("trims title and description, and refuses unknown keys", () => {
    const parsed = ZCreateListingInput.parse({
      route: "/x",
      category: "data",
      title: "  Abc  ",
      description: " d ",
      tier: "standard",
    });
    expect(parsed).toMatchObject({ title: "Abc", description: "d" });
    expect(
      ZCreateListingInput.safeParse({ route: "/x", category: "data", title: "Abc", tier: "standard", x: 1 })
        .success,
    ).toBe(false);
  });
});
