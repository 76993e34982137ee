/**
 * The one rule for characters refused in stored text (hostile input): every text field that reaches the database,
 * a header or a log line goes through it. Refused everywhere:
 * - C0 controls U+0000–U+001F (NUL breaks PostgreSQL text; CR/LF split headers and log lines), DEL U+007F and
 *   C1 controls U+0080–U+009F (Unicode `Cc`);
 * - lone surrogates (Unicode `Cs`): they cannot be encoded as UTF-8, so storing them would change the value;
 * - noncharacters U+FFFE and U+FFFF (never valid in interchange, often a sign of a decoding accident).
 * Multi-line free text (descriptions, reasons) may also carry TAB and LF; CR is always refused (store LF).
 */
import { z } from "zod";
import type { FieldErrorCode } from "./field-errors";

export interface TextRuleOptions {
  /** Allows TAB and LF (not CR): descriptions and reasons, never names, ids or anything sent in a header. */
  multiline?: boolean;
}

export interface RefusedCharacter {
  /** Index in UTF-16 code units, as JavaScript strings count. */
  index: number;
  /** `U+0000` style. */
  codePoint: string;
  reason: "control character" | "lone surrogate" | "noncharacter";
}

const MULTILINE_ALLOWED = new Set([0x09, 0x0a]);

function hex(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The first refused character of `text`, or undefined when it is acceptable. */
export function findRefusedCharacter(
  text: string,
  options: TextRuleOptions = {},
): RefusedCharacter | undefined {
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        index++; // a valid pair: an astral code point, never refused
        continue;
      }
      return { index, codePoint: hex(unit), reason: "lone surrogate" };
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return { index, codePoint: hex(unit), reason: "lone surrogate" };
    const control = unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f);
    if (control && !(options.multiline && MULTILINE_ALLOWED.has(unit)))
      return { index, codePoint: hex(unit), reason: "control character" };
    if (unit === 0xfffe || unit === 0xffff) return { index, codePoint: hex(unit), reason: "noncharacter" };
  }
  return undefined;
}

/** True when `text` passes the rule. */
export function isSafeText(text: string, options: TextRuleOptions = {}): boolean {
  return findRefusedCharacter(text, options) === undefined;
}

/** Length in Unicode code points, which is what users count (an emoji is one character). */
export function codePointLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    length++;
  }
  return length;
}

function fail(ctx: z.RefinementCtx, fieldCode: FieldErrorCode, message: string): void {
  ctx.addIssue({ code: "custom", message, params: { fieldCode } });
}

export interface SafeTextOptions extends TextRuleOptions {
  /** Trims surrounding white space before the other checks (the stored value is the trimmed one). */
  trim?: boolean;
  /** Bounds in code points, checked after trimming. */
  min?: number;
  max?: number;
  /** Names the field in messages ("name must be ..."); default "text". */
  label?: string;
}

/**
 * A string that passes the refused-character rule, optionally trimmed and bounded in code points.
 * Refusals carry the field code `invalid_characters`; bounds `too_short` / `too_long`.
 */
export function safeText(options: SafeTextOptions = {}) {
  const label = options.label ?? "text";
  return z.string().transform((raw, ctx) => {
    const text = options.trim ? raw.trim() : raw;
    const refused = findRefusedCharacter(text, options);
    if (refused) {
      fail(ctx, "invalid_characters", `${label} must not contain a ${refused.reason} (${refused.codePoint})`);
      return z.NEVER;
    }
    const length = codePointLength(text);
    if (options.min !== undefined && length < options.min) {
      fail(
        ctx,
        "too_short",
        `${label} must be at least ${options.min} characters${options.trim ? " after trimming" : ""}`,
      );
      return z.NEVER;
    }
    if (options.max !== undefined && length > options.max) {
      fail(
        ctx,
        "too_long",
        `${label} must be at most ${options.max} characters${options.trim ? " after trimming" : ""}`,
      );
      return z.NEVER;
    }
    return text;
  });
}

// ---------------------------------------------------------------------------------------------- keys

/**
 * Names that must never become keys of a plain object (prototype pollution): `__proto__` reaches the prototype,
 * and every `Object.prototype` member (`constructor`, `toString`, `hasOwnProperty`, ...) is found by a plain lookup
 * even when the object never stored it. User-keyed maps are `Map`s or null-prototype objects read with `Object.hasOwn`;
 * schemas that store a user-chosen name refuse these as well, so no stored name can break a later reader.
 */
export const RESERVED_KEY_NAMES: ReadonlySet<string> = new Set([
  "__proto__",
  ...Object.getOwnPropertyNames(Object.prototype),
]);

/** True for `__proto__`, `constructor`, `toString` and every other `Object.prototype` member name. */
export function isReservedKeyName(name: string): boolean {
  return RESERVED_KEY_NAMES.has(name);
}

/** Own-property lookup on a record keyed by user input: never returns an inherited member. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A null-prototype copy of `entries`: safe to index with any string. */
export function nullProtoRecord<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) record[key] = value;
  return record;
}
