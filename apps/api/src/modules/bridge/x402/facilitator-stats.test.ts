import { describe, expect, it } from "vitest";
import type { ExactRequirement, Facilitator } from "./facilitator";
import { countingClaims, countingFacilitator, countingUpto, MAX_REASONS } from "./facilitator-stats";
import type { UptoFacilitator } from "./upto-facilitator";
import type { ExactEvmPayload, SettleResponse, VerifyResponse } from "./wire";

/** An inner facilitator that answers what each test scripts: the decorator's counting is what is under test. */
function scripted(verdicts: (VerifyResponse | Error)[], settles: (SettleResponse | Error)[]): Facilitator {
  const next = <T>(queue: (T | Error)[]): Promise<T> => {
    const item = queue.shift();
    if (item === undefined) throw new Error("script exhausted");
    return item instanceof Error ? Promise.reject(item) : Promise.resolve(item);
  };
  return {
    offers: async () => [],
    verify: () => next(verdicts),
    settle: () => next(settles),
    settleLeaseMs: 120_000,
    relayer: "0x0000000000000000000000000000000000000004",
    chain: undefined,
  };
}

const payload = {} as ExactEvmPayload;
const requirement = {} as ExactRequirement;
const now = () => new Date("2026-06-01T00:00:00Z");

describe("counting facilitator (x402 dashboard)", () => {
  it("counts verifies and settles by outcome with refusal reasons, results and errors unchanged", async () => {
    const refusal: VerifyResponse = { isValid: false, invalidReason: "invalid_exact_evm_payload_signature" };
    const failed: SettleResponse = {
      success: false,
      transaction: "",
      network: "amoy",
      errorReason: "nonce_used",
    };
    const ok: SettleResponse = { success: true, transaction: "not-a-hash", network: "amoy" };
    const facilitator = countingFacilitator(
      scripted([{ isValid: true }, refusal, new Error("rpc down")], [ok, failed, new Error("send failed")]),
      now,
      undefined,
    );
    expect(await facilitator.verify(1, payload, requirement)).toEqual({ isValid: true });
    expect(await facilitator.verify(2, payload, requirement)).toBe(refusal);
    await expect(facilitator.verify(2, payload, requirement)).rejects.toThrow("rpc down");
    expect(await facilitator.settle(2, payload, requirement)).toBe(ok);
    expect(await facilitator.settle(2, payload, requirement)).toBe(failed);
    await expect(facilitator.settle(2, payload, requirement)).rejects.toThrow("send failed");
    expect(facilitator.stats).toMatchObject({
      verifies: { valid: 1, invalid: 1, errors: 1 },
      settles: { succeeded: 1, failed: 1, errors: 1 },
      inFlight: 0,
      gasWei: 0n,
      // No chain to read the receipt from.
      gasUnread: 1,
    });
    expect(Object.fromEntries(facilitator.stats.reasons)).toEqual({
      invalid_exact_evm_payload_signature: 1,
      nonce_used: 1,
    });
    expect(facilitator.settleLeaseMs).toBe(120_000);
  });

  it("holds settlements in flight while they run, and bounds the reasons it keeps", async () => {
    let finish: (value: SettleResponse) => void = () => {};
    const inner = scripted([], []);
    inner.settle = () => new Promise((resolve) => (finish = resolve));
    const facilitator = countingFacilitator(inner, now, undefined);
    const running = facilitator.settle(2, payload, requirement);
    expect(facilitator.stats.inFlight).toBe(1);
    finish({ success: false, transaction: "", network: "amoy", errorReason: "x" });
    await running;
    expect(facilitator.stats.inFlight).toBe(0);

    const many = countingFacilitator(
      scripted(
        Array.from({ length: MAX_REASONS + 10 }, (_, i) => ({
          isValid: false,
          invalidReason: `reason_${i}`,
        })),
        [],
      ),
      now,
      undefined,
    );
    for (let i = 0; i < MAX_REASONS + 10; i++) await many.verify(2, payload, requirement);
    expect(many.stats.reasons.size).toBe(MAX_REASONS + 1);
    expect(many.stats.reasons.get("other")).toBe(10);
  });

  it("counts upto apart from exact, into the same reasons and in-flight figures", async () => {
    const exact = countingFacilitator(scripted([], []), now, undefined);
    const verdicts: (VerifyResponse | Error)[] = [
      { isValid: true },
      { isValid: false, invalidReason: "permit2_invalid_signature" },
      new Error("rpc down"),
    ];
    type UptoSettled = Awaited<ReturnType<UptoFacilitator["settle"]>>;
    const settles: (UptoSettled | Error)[] = [
      { success: true, transaction: "not-a-hash", network: "eip155:137" },
      { success: false, transaction: "", network: "eip155:137", errorReason: "permit2_nonce_used" },
      new Error("send failed"),
    ];
    let settling = 0;
    const inner: UptoFacilitator = {
      relayer: "0x0000000000000000000000000000000000000004",
      settleLeaseMs: 60_000,
      verify: async () => {
        const next = verdicts.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      settle: async () => {
        settling = exact.stats.inFlight;
        const next = settles.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
    };
    const upto = countingUpto(inner, exact.stats, undefined)!;
    const args = [{}, {}] as Parameters<UptoFacilitator["verify"]>;
    expect(await upto.verify(...args)).toEqual({ isValid: true });
    expect((await upto.verify(...args)).isValid).toBe(false);
    await expect(upto.verify(...args)).rejects.toThrow("rpc down");
    expect((await upto.settle(...args)).success).toBe(true);
    expect(settling).toBe(1);
    expect((await upto.settle(...args)).success).toBe(false);
    await expect(upto.settle(...args)).rejects.toThrow("send failed");
    expect(exact.stats.upto).toEqual({
      verifies: { valid: 1, invalid: 1, errors: 1 },
      settles: { succeeded: 1, failed: 1, errors: 1 },
    });
    // `exact` counted nothing; the reasons and in-flight figure are shared.
    expect(exact.stats.verifies).toEqual({ valid: 0, invalid: 0, errors: 0 });
    expect(exact.stats.settles).toEqual({ succeeded: 0, failed: 0, errors: 0 });
    expect(Object.fromEntries(exact.stats.reasons)).toEqual({
      permit2_invalid_signature: 1,
      permit2_nonce_used: 1,
    });
    expect(exact.stats.inFlight).toBe(0);
    expect(upto.settleLeaseMs).toBe(60_000);
    expect(countingUpto(undefined, exact.stats, undefined)).toBeUndefined();
  });

  it("counts the claims a pass finished, once each: pending and submitted ones are not finished", async () => {
    const { stats } = countingFacilitator(scripted([], []), now, undefined);
    const passes = [
      { ran: true, claims: [{ state: "submitted" }, { state: "pending" }] },
      { ran: true, claims: [{ state: "confirmed" }, { state: "failed" }, { state: "confirmed" }] },
      { ran: false, claims: [] },
    ];
    const batcher = countingClaims({ run: async () => passes.shift()! }, stats);
    expect((await batcher.run()).claims).toHaveLength(2);
    expect(stats.batch.claims).toEqual({ confirmed: 0, failed: 0 });
    await batcher.run();
    await batcher.run();
    expect(stats.batch.claims).toEqual({ confirmed: 2, failed: 1 });
  });
});
