/**
 * Property tests over every shared zod schema: hostile values never make a schema throw, never pollute a
 * prototype, and what a schema accepts keeps the invariants the money path relies on.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as shared from "./index";
import { ZListingRoute } from "./listing";
import { ZTierName, ZUsdAmount } from "./merchant";
import { formatUsd, parseUsd } from "./money";
import { findRefusedCharacter, isReservedKeyName, RESERVED_KEY_NAMES, safeText } from "./text";

const RUNS = { numRuns: 300 };

/** Every exported zod schema of @tollgate/shared, by export name. */
const schemas: [string, z.ZodType][] = [];
for (const [name, value] of Object.entries(shared as Record<string, unknown>)) {
  if (value instanceof z.ZodType) schemas.push([name, value]);
}

/** Keys an attacker would choose: prototype names, look-alikes, and ordinary ones. */
const hostileKey = fc.oneof(
  fc.constantFrom(...RESERVED_KEY_NAMES, "__proto__", "constructor", "prototype", "toString", "valueOf"),
  fc.string({ maxLength: 12 }),
);

/** Text with the characters that broke things before: NUL, CR/LF, C1, lone surrogates, bidi, emoji. */
const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom(
    "\u0000",
    "a\r\nb",
    "\u0085",
    "\ud800",
    "\udfff",
    "\u202e",
    "\ufffe",
    "0x",
    "1e3",
    "-1",
    "NaN",
  ),
);

/** Any JSON-ish value, including prototype keys, deep nesting and numbers where strings are expected. */
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileText,
    fc.integer(),
    fc.double(),
    fc.bigInt(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie("value"), { maxKeys: 5 }),
  ),
})).value;

/** A JSON body as a parser would build it: `__proto__` becomes an own key, as JSON.parse does. */
const hostileBody = fc.dictionary(hostileKey, hostileValue, { maxKeys: 8 }).map((object) => {
  const body: Record<string, unknown> = JSON.parse(
    JSON.stringify(object, (_key, value) => (typeof value === "bigint" ? value.toString() : value)) ?? "{}",
  );
  return body;
});

describe("every shared schema against hostile values", () => {
  it("finds the schemas (so the properties below cannot pass vacuously)", () => {
    expect(schemas.length).toBeGreaterThan(30);
  });

  it.each(schemas)("%s never throws and never pollutes Object.prototype", (_name, schema) => {
    fc.assert(
      fc.property(fc.oneof(hostileValue, hostileBody), (value) => {
        const result = schema.safeParse(value);
        expect(typeof result.success).toBe("boolean");
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.keys(Object.prototype)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});

describe("money stays exact", () => {
  it("formatUsd and parseUsd round-trip every micro-USD integer", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), (micro) => {
        expect(parseUsd(formatUsd(micro))).toBe(micro);
      }),
      RUNS,
    );
  });

  it("ZUsdAmount accepts only decimal strings, and what it accepts is positive and formats back", () => {
    fc.assert(
      fc.property(fc.oneof(hostileValue, fc.stringMatching(/^\d{1,4}(\.\d{1,8})?$/)), (value) => {
        const result = ZUsdAmount.safeParse(value);
        if (!result.success) return;
        expect(typeof value).toBe("string");
        expect(result.data).toBeGreaterThan(0n);
        expect(parseUsd(formatUsd(result.data))).toBe(result.data);
        expect(parseUsd(value as string)).toBe(result.data);
      }),
      RUNS,
    );
  });
});

describe("names and text", () => {
  it("ZTierName never accepts a reserved key name, and accepts the tier pattern", () => {
    fc.assert(
      fc.property(fc.oneof(hostileKey, fc.stringMatching(/^[a-z][a-z0-9_-]{0,31}$/)), (name) => {
        const result = ZTierName.safeParse(name);
        if (isReservedKeyName(name)) expect(result.success).toBe(false);
        if (result.success) {
          expect(result.data).toBe(name);
          expect(Object.hasOwn(Object.prototype, name)).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it("safeText accepts exactly the text the one refused-character rule accepts", () => {
    const single = safeText({ max: 1000, label: "field" });
    const multi = safeText({ max: 1000, label: "field", multiline: true });
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(single.safeParse(text).success).toBe(findRefusedCharacter(text) === undefined);
        expect(multi.safeParse(text).success).toBe(
          findRefusedCharacter(text, { multiline: true }) === undefined,
        );
      }),
      RUNS,
    );
  });

  it("an accepted listing route never resolves above its root, even percent-encoded", () => {
    const segment = fc.oneof(
      fc.constantFrom(
        "..",
        ".",
        "%2e%2e",
        "%2E.",
        ".%2e",
        "%2f",
        "%5c",
        "%00",
        "a",
        "v1",
        "search",
        "%C3%A9",
      ),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const route = `/${segments.join("/")}`;
        const result = ZListingRoute.safeParse(route);
        if (!result.success) return;
        const resolved = new URL(result.data, "https://merchant.example/base/").pathname;
        expect(resolved.startsWith("/")).toBe(true);
        for (const part of result.data.split("/")) {
          const decoded = decodeURIComponent(part);
          expect(decoded).not.toBe("..");
          expect(decoded).not.toBe(".");
          expect(findRefusedCharacter(decoded)).toBeUndefined();
        }
      }),
      RUNS,
    );
  });
});
