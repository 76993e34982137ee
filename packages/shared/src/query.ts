/**
 * Numbers read from a query string or a path (hostile input): only canonical decimal integers in a documented range.
 * `0x10`, `1e1`, `0b11`, ` 1`, `+1`, `01` and `1.0` are refused, not coerced: a number that reaches our code is the
 * number the client wrote. tRPC callers send JSON numbers; those must be safe integers in the same range.
 */
import { z } from "zod";

const CANONICAL_INTEGER = /^(0|[1-9][0-9]{0,15})$/;

export interface QueryIntegerOptions {
  min: number;
  max: number;
}

/** A query/path integer: a canonical decimal string (REST) or a safe integer (tRPC), within [min, max]. */
export function queryInteger({ min, max }: QueryIntegerOptions) {
  const range = `an integer from ${min} to ${max}`;
  // Documented as what it is on the wire for REST: an integer in range, written in decimal digits, nothing coerced.
  return z
    .union([z.string(), z.number()])
    .transform((value, ctx) => {
      const number =
        typeof value === "number"
          ? Number.isSafeInteger(value)
            ? value
            : Number.NaN
          : CANONICAL_INTEGER.test(value)
            ? Number(value)
            : Number.NaN;
      if (Number.isNaN(number)) {
        ctx.addIssue({
          code: "custom",
          message: `must be ${range}, written in plain decimal digits`,
          params: { fieldCode: "invalid_format" },
        });
        return z.NEVER;
      }
      if (number < min || number > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be ${range}`,
          params: { fieldCode: number < min ? "too_short" : "too_long" },
        });
        return z.NEVER;
      }
      return number;
    })
    .meta({ description: range, type: "integer", minimum: min, maximum: max });
}
