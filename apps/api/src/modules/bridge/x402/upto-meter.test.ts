import { describe, expect, it } from "vitest";
import { createLogger } from "../../../infra/logger";
import { METERED_AMOUNT_HEADER, meteredAmount } from "./upto-meter";

const log = createLogger("silent");
const delivered = (headers: Record<string, string>) => ({ status: 200, headers, body: new Uint8Array() });
const CEILING = 100_000n;

describe("upto metering (docs/decisions/0085)", () => {
  it("settles the reported amount, capped at the ceiling", () => {
    expect(meteredAmount(delivered({ [METERED_AMOUNT_HEADER]: "35017" }), CEILING, log)).toEqual({
      amount: 35_017n,
      reason: "metered",
    });
    expect(meteredAmount(delivered({ [METERED_AMOUNT_HEADER]: "100000" }), CEILING, log)).toEqual({
      amount: CEILING,
      reason: "metered",
    });
    expect(meteredAmount(delivered({ [METERED_AMOUNT_HEADER]: "100001" }), CEILING, log)).toEqual({
      amount: CEILING,
      reason: "capped",
    });
  });

  it("reads the header whatever its case, and an explicit 0 is 0 with its reason", () => {
    expect(meteredAmount(delivered({ "X-Tollgate-Metered-Amount": " 7 " }), CEILING, log).amount).toBe(7n);
    expect(meteredAmount(delivered({ [METERED_AMOUNT_HEADER]: "0" }), CEILING, log)).toEqual({
      amount: 0n,
      reason: "metered_zero",
    });
  });

  it("no report, or one that is not a decimal integer, costs the per-call price", () => {
    for (const headers of [
      {} as Record<string, string>,
      { [METERED_AMOUNT_HEADER]: "" },
      { [METERED_AMOUNT_HEADER]: "-5" },
      { [METERED_AMOUNT_HEADER]: "1.5" },
      { [METERED_AMOUNT_HEADER]: "0x10" },
      { [METERED_AMOUNT_HEADER]: "1".repeat(79) },
    ]) {
      expect(meteredAmount(delivered(headers), CEILING, log)).toEqual({
        amount: CEILING,
        reason: "per_call_price",
      });
    }
  });
});
