import type { z } from "zod";
import { FIELD_ERROR_CODES, type FieldError, type FieldErrorCode } from "./field-errors";

function isFieldErrorCode(value: unknown): value is FieldErrorCode {
  return typeof value === "string" && (FIELD_ERROR_CODES as readonly string[]).includes(value);
}

function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/** Maps zod issues to our field errors: each names the failing field and the rule it broke. */
export function fieldErrorsFromZod(error: z.ZodError): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of error.issues) {
    const path = joinPath(issue.path);
    switch (issue.code) {
      case "custom": {
        const fieldCode = issue.params?.fieldCode;
        errors.push({
          path,
          code: isFieldErrorCode(fieldCode) ? fieldCode : "invalid_value",
          message: issue.message,
        });
        break;
      }
      case "unrecognized_keys":
        for (const key of issue.keys) {
          errors.push({
            path: joinPath([...issue.path, key]),
            code: "unknown_field",
            message: `unknown field ${key}`,
          });
        }
        break;
      case "invalid_type":
        errors.push({
          path,
          code: /received undefined/.test(issue.message) ? "required" : "invalid_type",
          message: issue.message,
        });
        break;
      case "too_small":
        errors.push({ path, code: "too_short", message: issue.message });
        break;
      case "too_big":
        errors.push({ path, code: "too_long", message: issue.message });
        break;
      case "invalid_format":
        errors.push({ path, code: "invalid_format", message: issue.message });
        break;
      default:
        errors.push({ path, code: "invalid_value", message: issue.message });
    }
  }
  return errors;
}
