import { describe, expect, it } from "vitest";
import {
  AppError,
  ERROR_CODES,
  ERROR_STATUS,
  ERROR_TITLES,
  type ErrorCode,
  isAppError,
  isErrorCode,
  PROBLEM_CONTENT_TYPE,
  PROBLEM_TYPE_BASE,
  statusForCode,
} from "./errors";
import { FIELD_ERROR_CODES } from "./field-errors";

describe("error codes", () => {
  it("map to the statuses the API promises", () => {
    const expected: Partial<Record<ErrorCode, number>> = {
      validation_failed: 400,
      malformed_json: 400,
      merchant_auth_required: 401,
      invalid_merchant_secret: 401,
      payout_change_requires_step_up: 403,
      merchant_not_found: 404,
      idempotency_key_in_use: 409,
      payload_too_large: 413,
      idempotency_key_reused: 422,
      rate_limited: 429,
      internal_error: 500,
      service_unavailable: 503,
    };
    for (const [code, status] of Object.entries(expected))
      expect(statusForCode(code as ErrorCode), code).toBe(status);
  });

  it("are snake_case, listed once, each with an HTTP error status and a title", () => {
    expect(ERROR_CODES).toEqual(Object.keys(ERROR_STATUS));
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
      expect(ERROR_STATUS[code]).toBeLessThan(600);
      expect(ERROR_TITLES[code].length).toBeGreaterThan(0);
    }
    expect(Object.keys(ERROR_TITLES).sort()).toEqual([...ERROR_CODES].sort());
  });

  it("field error codes are unique snake_case", () => {
    expect(new Set(FIELD_ERROR_CODES).size).toBe(FIELD_ERROR_CODES.length);
    for (const code of FIELD_ERROR_CODES) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it("isErrorCode accepts only listed codes, not inherited properties", () => {
    expect(isErrorCode("not_found")).toBe(true);
    for (const value of ["toString", "__proto__", "constructor", "NOT_FOUND", "", 404, null, undefined]) {
      expect(isErrorCode(value), String(value)).toBe(false);
    }
  });
});

describe("AppError", () => {
  it("carries the code, its status and the detail", () => {
    const error = new AppError("merchant_not_found", "no merchant mrch_x");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("AppError");
    expect(error.code).toBe("merchant_not_found");
    expect(error.status).toBe(404);
    expect(error.message).toBe("no merchant mrch_x");
    expect(isAppError(error)).toBe(true);
    expect(isAppError(new Error("x"))).toBe(false);
    expect(isAppError({ code: "not_found" })).toBe(false);
  });

  it("defaults the detail to the title", () => {
    expect(new AppError("rate_limited").message).toBe("Too many requests");
  });

  it("renders RFC 9457 problem details with field errors and the request id", () => {
    const errors = [{ path: "pay_to.evm", code: "burn_address" as const, message: "burn" }];
    const problem = new AppError("validation_failed", "pay_to is invalid", { errors }).toProblem("req_abc");
    expect(problem).toEqual({
      type: `${PROBLEM_TYPE_BASE}validation_failed`,
      title: "Validation failed",
      status: 400,
      detail: "pay_to is invalid",
      code: "validation_failed",
      request_id: "req_abc",
      errors,
    });
    expect(PROBLEM_CONTENT_TYPE).toBe("application/problem+json");
  });

  it("omits an empty errors list and a missing request id", () => {
    const problem = new AppError("not_found", "gone", { errors: [] }).toProblem();
    expect(problem).not.toHaveProperty("errors");
    expect(problem).not.toHaveProperty("request_id");
  });

  it("never leaks the detail or the cause of a 5xx", () => {
    const cause = new Error("connect ECONNREFUSED 10.0.0.5:5432");
    const error = new AppError("internal_error", "db password=hunter2 failed", { cause });
    expect(error.cause).toBe(cause);
    const problem = error.toProblem("req_1");
    expect(problem.detail).toBe("Internal error");
    expect(JSON.stringify(problem)).not.toMatch(/hunter2|ECONNREFUSED/);
    expect(new AppError("service_unavailable", "redis down").toProblem().detail).toBe("Service unavailable");
  });

  it("keeps headers for the transport (e.g. Retry-After)", () => {
    const error = new AppError("rate_limited", undefined, { headers: { "Retry-After": "30" } });
    expect(error.headers).toEqual({ "Retry-After": "30" });
    expect(error.toProblem()).not.toHaveProperty("headers");
  });
});
