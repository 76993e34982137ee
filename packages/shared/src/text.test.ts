import { describe, expect, it } from "vitest";
import {
  codePointLength,
  findRefusedCharacter,
  isReservedKeyName,
  isSafeText,
  nullProtoRecord,
  ownValue,
  safeText,
} from "./text";
import { fieldErrorsFromZod } from "./validation";

describe("the refused-character rule", () => {
  it("refuses NUL, every other C0 control, DEL and C1 controls", () => {
    for (let code = 0; code <= 0x1f; code++) {
      expect(findRefusedCharacter(`a${String.fromCharCode(code)}b`)).toMatchObject({
        index: 1,
        reason: "control character",
      });
    }
    for (let code = 0x7f; code <= 0x9f; code++) expect(isSafeText(String.fromCharCode(code))).toBe(false);
    expect(findRefusedCharacter("a\u0000b")?.codePoint).toBe("U+0000");
  });

  it("refuses lone surrogates but keeps astral characters", () => {
    expect(findRefusedCharacter("x\ud800")).toMatchObject({ index: 1, reason: "lone surrogate" });
    expect(findRefusedCharacter("\udc00x")).toMatchObject({ index: 0, reason: "lone surrogate" });
    expect(findRefusedCharacter("\ud800\ud800\udc00")).toMatchObject({ index: 0 });
    expect(isSafeText("emoji 😀 and 𝄞")).toBe(true);
  });

  it("refuses the noncharacters U+FFFE and U+FFFF", () => {
    expect(findRefusedCharacter("\ufffe")?.reason).toBe("noncharacter");
    expect(findRefusedCharacter("\uffff")?.reason).toBe("noncharacter");
  });

  it("allows TAB and LF only in multi-line text, and CR nowhere", () => {
    expect(isSafeText("a\tb\nc")).toBe(false);
    expect(isSafeText("a\tb\nc", { multiline: true })).toBe(true);
    expect(isSafeText("a\r\nb", { multiline: true })).toBe(false);
    expect(isSafeText("a\u0000b", { multiline: true })).toBe(false);
  });

  it("accepts ordinary text in any script, including bidi marks and zero-width joiners", () => {
    for (const text of [
      "Acme Search",
      "Ünïcödé",
      "日本語のサービス",
      "مرحبا\u200f",
      "👩\u200d💻 tools",
      "<b>&amp;</b>",
    ])
      expect(isSafeText(text)).toBe(true);
  });

  it("counts length in code points", () => {
    expect(codePointLength("abc")).toBe(3);
    expect(codePointLength("😀😀")).toBe(2);
    expect(codePointLength("\ud800")).toBe(1);
  });
});

describe("safeText", () => {
  const name = safeText({ trim: true, min: 3, max: 5, label: "title" });

  it("trims, bounds in code points and keeps the trimmed value", () => {
    expect(name.parse("  abc  ")).toBe("abc");
    expect(name.parse("😀😀😀😀😀")).toBe("😀😀😀😀😀");
    const short = name.safeParse(" ab ");
    expect(short.success).toBe(false);
    if (!short.success) expect(fieldErrorsFromZod(short.error)[0]?.code).toBe("too_short");
    const long = name.safeParse("abcdef");
    if (!long.success) expect(fieldErrorsFromZod(long.error)[0]?.code).toBe("too_long");
    expect(long.success).toBe(false);
  });

  it("refuses a control character with the field code invalid_characters", () => {
    const result = name.safeParse("ab\u0000c");
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(fieldErrorsFromZod(result.error)).toEqual([
        {
          path: "",
          code: "invalid_characters",
          message: "title must not contain a control character (U+0000)",
        },
      ]);
    }
  });

  it("refuses a control character that trimming would otherwise keep inside", () => {
    expect(safeText({ trim: true }).safeParse(" a\u0085b ").success).toBe(false);
  });
});

describe("reserved key names", () => {
  it("names __proto__ and every Object.prototype member", () => {
    for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"])
      expect(isReservedKeyName(key)).toBe(true);
    for (const key of ["standard", "premium", "proto", "Constructor"])
      expect(isReservedKeyName(key)).toBe(false);
  });

  it("ownValue never returns an inherited member", () => {
    const record: Record<string, number> = { standard: 1 };
    expect(ownValue(record, "standard")).toBe(1);
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      expect(ownValue(record, key)).toBe(undefined);
  });

  it("nullProtoRecord stores __proto__ as data", () => {
    const record = nullProtoRecord([
      ["__proto__", 1],
      ["a", 2],
    ]);
    expect(Object.getPrototypeOf(record)).toBe(null);
    expect(Object.getOwnPropertyDescriptor(record, "__proto__")?.value).toBe(1);
    expect(Object.keys(record)).toEqual(["__proto__", "a"]);
    expect(record.toString).toBe(undefined);
  });
});
