// The rail choice alone (decision 0081): rails with a fixed cost and rails with a per-call cost trade places as the
// expected number of calls grows; a named rail is obeyed or refused; a rail that cannot price itself is not chosen.
import { describe, expect, it } from "vitest";
import { QuoteRejectedError } from "./errors";
import { type Challenge402, chooseRail, microUsdOfWei, type Rail, type RailId } from "./rails";

const challenge: Challenge402 = {
  url: "https://api.example.com/x",
  response: new Response(null, { status: 402 }),
  body: {},
  aifp1: undefined,
};

/** A rail costing `fixed` once plus `perCall` per call, in micro-USD; `undefined` fixed: it cannot price. */
function rail(id: RailId, fixed: bigint | undefined, perCall: bigint, payable = true): Rail {
  return {
    id,
    canPay: () => payable,
    estimateCost: async (_challenge, calls) =>
      fixed === undefined ? undefined : { priceMicroUsd: perCall * BigInt(calls), feesMicroUsd: fixed },
    pay: async () => {
      throw new Error("not paid in this test");
    },
  };
}

describe("chooseRail", () => {
  // A receipt-style rail (one purchase, cheap units) against a per-call rail with no fee.
  const receipt = rail("aifp1", 50_000n, 1_000n);
  const perCall = rail("x402-exact", 0n, 10_000n);

  it("one call: the per-call rail is cheaper; many calls: the rail with the fixed cost wins", async () => {
    expect((await chooseRail([receipt, perCall], challenge))?.rail.id).toBe("x402-exact");
    expect((await chooseRail([receipt, perCall], challenge, { expectedCalls: 5 }))?.rail.id).toBe(
      "x402-exact",
    );
    const many = await chooseRail([receipt, perCall], challenge, { expectedCalls: 6 });
    expect(many?.rail.id).toBe("aifp1");
    expect(many?.cost).toEqual({ priceMicroUsd: 6_000n, feesMicroUsd: 50_000n });
  });

  it("equal costs go to the earlier rail; a rail that cannot pay or price is skipped; none: undefined", async () => {
    const same = rail("pay-matic", 0n, 10_000n);
    expect((await chooseRail([perCall, same], challenge))?.rail.id).toBe("x402-exact");
    expect((await chooseRail([same, perCall], challenge))?.rail.id).toBe("pay-matic");
    const blind = rail("pay-matic", undefined, 1n);
    const closed = rail("aifp1", 0n, 1n, false);
    expect((await chooseRail([blind, closed, perCall], challenge))?.rail.id).toBe("x402-exact");
    expect(await chooseRail([blind, closed], challenge)).toBeUndefined();
  });

  it("a named rail is used even when dearer; one the 402 does not offer is refused", async () => {
    const named = await chooseRail([receipt, perCall], challenge, { rail: "aifp1" });
    expect(named?.rail.id).toBe("aifp1");
    const refused = await chooseRail([perCall, rail("aifp1", 0n, 1n, false)], challenge, {
      rail: "aifp1",
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QuoteRejectedError);
    expect(refused).toMatchObject({ reason: "rail_unavailable" });
  });

  it("expectedCalls must be a positive integer", async () => {
    for (const expectedCalls of [0, -1, 1.5, Number.NaN]) {
      await expect(chooseRail([perCall], challenge, { expectedCalls })).rejects.toThrow(TypeError);
    }
  });

  it("native amounts convert to micro-USD rounded up", () => {
    expect(microUsdOfWei(10n ** 18n, 250_000n)).toBe(250_000n);
    expect(microUsdOfWei(1n, 250_000n)).toBe(1n);
    expect(microUsdOfWei(0n, 250_000n)).toBe(0n);
  });
});
