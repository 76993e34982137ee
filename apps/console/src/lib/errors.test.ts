import { ZRegisterMerchantInput } from "@tollgate/shared";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { validationProblem } from "../test-fakes";
import { problemOf, toFormProblem, validate } from "./errors";

describe("errors", () => {
  it("reads the problem object from a TRPCClientError", () => {
    const error = Object.assign(new TRPCClientError("bad"), {
      data: validationProblem([{ path: "name", code: "too_short", message: "too short" }]),
    });
    expect(problemOf(error)).toMatchObject({
      code: "validation_failed",
      status: 400,
      request_id: "req_test123",
    });
    expect(toFormProblem(error)).toEqual({
      message: "Some fields need attention.",
      code: "validation_failed",
      requestId: "req_test123",
      errors: [{ path: "name", code: "too_short", message: "too short" }],
    });
  });

  it("words other problems with their title and detail, and network failures plainly", () => {
    const stepUp = Object.assign(new TRPCClientError("x"), {
      data: {
        type: "/docs/errors#payout_change_requires_step_up",
        title: "Payout change requires owner step-up",
        status: 403,
        detail: "nothing was changed",
        code: "payout_change_requires_step_up",
        httpStatus: 403,
      },
    });
    expect(toFormProblem(stepUp).message).toBe("Payout change requires owner step-up: nothing was changed");
    expect(toFormProblem(new TypeError("Failed to fetch")).message).toMatch(
      /Could not reach the Tollgate API/,
    );
  });

  it("validates with the shared schemas and keeps their paths", () => {
    const result = validate(ZRegisterMerchantInput, { name: "Acme", pay_to: { evm: "0x1", bogus: "x" } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => [error.path, error.code])).toEqual(
      expect.arrayContaining([
        ["pay_to.evm", "invalid_evm_address"],
        ["pay_to.bogus", "unknown_field"],
      ]),
    );
  });
});
