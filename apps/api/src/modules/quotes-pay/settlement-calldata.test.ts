/**
 * The hand-written settlement calldata is byte-identical to viem's `encodeFunctionData` over the ABIs,
 * for many inputs (seeded, so a failure reproduces) and for the edges, and refuses what viem refuses with the same
 * error.
 */
import { splitterV12Abi, splitterV14Abi, ZERO_ADDRESS } from "@tollgate/shared";
import { type Address, encodeFunctionData, erc20Abi, getAddress, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import {
  encodeApprove,
  encodePayNative,
  encodePayStable,
  encodeSettle,
  type QuoteStruct,
} from "./settlement-calldata";

/** xorshift32: deterministic inputs. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () => (next() & 0xff).toString(16).padStart(2, "0")).join("");
  return {
    int: (below: number) => next() % below,
    hex,
    address: (): Address => {
      const raw = `0x${hex(20)}` as Address;
      return next() % 2 ? getAddress(raw) : raw;
    },
    amount: (): bigint => {
      const edges = [0n, 1n, 2n ** 255n, 2n ** 256n - 1n, 10n ** 6n];
      return next() % 4 === 0 ? edges[next() % edges.length]! : BigInt(`0x${hex(1 + (next() % 32))}`);
    },
    text: (): string => {
      const samples = [
        "",
        "qt_",
        "a".repeat(31),
        "b".repeat(32),
        "c".repeat(33),
        "ünïcødé ✓ 𝄞",
        "x".repeat(64),
      ];
      return next() % 3 === 0 ? samples[next() % samples.length]! : `qt_${hex(1 + (next() % 24))}`;
    },
  };
}

const CASES = 300;

function errorOf(run: () => unknown): { name: string; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return { name: (error as Error).constructor.name, message: (error as Error).message };
  }
}

describe("settlement calldata", () => {
  it("happy: payNative, payStable and approve equal viem's encoding", () => {
    const g = generator(0x15_0001);
    for (let i = 0; i < CASES; i++) {
      const paymentId = `0x${g.hex(32)}` as Hex;
      const [token, merchant, ipCreator, spender] = [g.address(), g.address(), g.address(), g.address()];
      const amount = g.amount();
      const orderId = g.text();
      expect(encodePayNative(paymentId, merchant, ipCreator, orderId)).toBe(
        encodeFunctionData({
          abi: splitterV12Abi,
          functionName: "payNative",
          args: [paymentId, merchant, ipCreator, orderId],
        }),
      );
      expect(encodePayStable(paymentId, token, amount, merchant, ipCreator, orderId)).toBe(
        encodeFunctionData({
          abi: splitterV12Abi,
          functionName: "payStable",
          args: [paymentId, token, amount, merchant, ipCreator, orderId],
        }),
      );
      expect(encodeApprove(spender, amount)).toBe(
        encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, amount] }),
      );
    }
  });

  it("happy: settleNative and settleStable equal viem's encoding (signatures of any length, upper-case hex kept)", () => {
    const g = generator(0x15_0002);
    for (let i = 0; i < CASES; i++) {
      const quote: QuoteStruct = {
        payer: g.address(),
        merchant: g.address(),
        token: i % 2 ? ZERO_ADDRESS : g.address(),
        grossAmount: g.amount(),
        ipCreator: ZERO_ADDRESS,
        validUntil: BigInt(g.int(2 ** 31)),
        orderIdHash: `0x${g.hex(32)}`,
        routeId: `0x${g.hex(5)}${"0".repeat(54)}`,
      };
      const lengths = [65, 0, 1, 32, 64, 97];
      let signature = `0x${g.hex(lengths[g.int(lengths.length)]!)}` as Hex;
      if (i % 5 === 0) signature = signature.toUpperCase().replace("0X", "0x") as Hex;
      if (i % 7 === 0) signature = `${signature}a` as Hex; // odd length: viem left-pads to whole bytes
      const orderId = g.text();
      for (const functionName of ["settleNative", "settleStable"] as const) {
        expect(encodeSettle(functionName, quote, orderId, signature)).toBe(
          encodeFunctionData({ abi: splitterV14Abi, functionName, args: [quote, orderId, signature] }),
        );
      }
    }
  });

  it("error: refuses what viem refuses, with the same error", () => {
    const good = "0x8ba1f109551bd432803012645ac136ddd64dba72" as Address;
    const badChecksum = "0x8Ba1f109551bD432803012645Ac136ddd64DBA72" as Address;
    const id = `0x${"11".repeat(32)}` as Hex;
    const viemPay = (args: readonly [Hex, Address, bigint, Address, Address, string]) => () =>
      encodeFunctionData({ abi: splitterV12Abi, functionName: "payStable", args });
    const cases: [Hex, Address, bigint, Address, Address, string][] = [
      [id, badChecksum, 1n, good, ZERO_ADDRESS, "qt_1"],
      [id, "0x1234" as Address, 1n, good, ZERO_ADDRESS, "qt_1"],
      [id, good, -1n, good, ZERO_ADDRESS, "qt_1"],
      [id, good, 2n ** 256n, good, ZERO_ADDRESS, "qt_1"],
      [`0x${"11".repeat(31)}`, good, 1n, good, ZERO_ADDRESS, "qt_1"],
      [`0x${"11".repeat(33)}`, good, 1n, good, ZERO_ADDRESS, "qt_1"],
    ];
    for (const args of cases) {
      const expected = errorOf(viemPay(args));
      expect(expected).toBeDefined();
      expect(errorOf(() => encodePayStable(...args))).toEqual(expected);
    }
  });
});
