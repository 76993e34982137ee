import { PAYMENT_EVENT_ABI } from "@tollgate/shared/contracts";
import {
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  keccak256,
  pad,
  stringToBytes,
} from "viem";
import { describe, expect, it } from "vitest";
import { InconsistentRpcDataError, type RpcLog } from "../rpc/rpc";
import { decodePaymentLog, MAX_STORED_ORDER_ID_BYTES, PAYMENT_TOPIC0 } from "./decode";

const SPLITTER = "0x00000000000000000000000000000000000000aa" as const;
const ctx = { chainId: 80002, network: "amoy", splitters: [{ version: "v1.2" as const, address: SPLITTER }] };
const PAYER = "0x1111111111111111111111111111111111111111";
const MERCHANT = "0xabcdef0000000000000000000000000000000002";
const TOKEN = "0x0000000000000000000000000000000000000000";

function paymentLog(args: {
  amounts: [bigint, bigint, bigint, bigint];
  orderId: string;
  data?: Hex;
}): RpcLog {
  const topics = encodeEventTopics({
    abi: [PAYMENT_EVENT_ABI],
    eventName: "Payment",
    args: { payer: PAYER, merchant: MERCHANT, token: TOKEN },
  }) as Hex[];
  const data =
    args.data ??
    encodeAbiParameters(
      [
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "string" },
      ],
      [...args.amounts, args.orderId],
    );
  return {
    address: SPLITTER,
    topics,
    data,
    blockNumber: "0x10",
    blockHash: `0x${"ab".repeat(32)}`,
    transactionHash: `0x${"cd".repeat(32)}`,
    transactionIndex: "0x0",
    logIndex: "0x3",
  };
}

/** viem's strict decoding, lower-cased the way the indexer stores addresses. */
function viaViem(log: RpcLog) {
  const { args } = decodeEventLog({
    abi: [PAYMENT_EVENT_ABI],
    data: log.data,
    topics: log.topics as [Hex, ...Hex[]],
    strict: true,
  });
  return {
    payer: args.payer.toLowerCase(),
    merchantAddress: args.merchant.toLowerCase(),
    token: args.token.toLowerCase(),
    totalAmount: args.totalAmount.toString(),
    merchantAmount: args.merchantAmount.toString(),
    treasuryAmount: args.treasuryAmount.toString(),
    ipCreatorAmount: args.ipCreatorAmount.toString(),
    orderId: args.orderId,
  };
}

describe("decodePaymentLog", () => {
  it.each([
    ["a quote id", "qt_01J9ZK8Q4V", [1_000n, 990n, 10n, 0n]],
    ["an empty order id", "", [1n, 1n, 0n, 0n]],
    ["a long unicode order id", `ord_${"é€😀".repeat(28)}`, [2n ** 256n - 1n, 2n ** 255n, 3n, 2n ** 64n]],
  ] as const)("matches viem for %s", (_, orderId, amounts) => {
    const log = paymentLog({ amounts: [...amounts], orderId });
    const decoded = decodePaymentLog(log, ctx);
    expect(decoded).toMatchObject(viaViem(log));
    expect(decoded).toMatchObject({
      splitter: SPLITTER,
      logIndex: 3,
      blockNumber: 16n,
      txHash: `0x${"cd".repeat(32)}`,
    });
  });

  it("follows a non-canonical string offset like viem", () => {
    // Head words, one padding word, then the string at offset 0xc0 instead of 0xa0.
    const words = [1n, 2n, 3n, 4n, 0xc0n, 0n, 5n].map((n) => pad(`0x${n.toString(16)}`).slice(2));
    const data = `0x${words.join("")}${Buffer.from("qt_abc").toString("hex").padEnd(64, "0")}` as Hex;
    const log = paymentLog({ amounts: [0n, 0n, 0n, 0n], orderId: "", data });
    expect(decodePaymentLog(log, ctx)).toMatchObject({ ...viaViem(log), orderId: "qt_ab" });
  });

  it("stores an order id PostgreSQL cannot hold or index as keccak256 of its bytes, linking nothing", () => {
    const fits = `ord_${"a".repeat(MAX_STORED_ORDER_ID_BYTES - 4)}`;
    const cases = ["qt_nul\u0000byte", `qt_${"x".repeat(MAX_STORED_ORDER_ID_BYTES)}`, "\u0000"];
    for (const orderId of cases) {
      const decoded = decodePaymentLog(paymentLog({ amounts: [1n, 1n, 0n, 0n], orderId }), ctx);
      expect(decoded).toMatchObject({
        orderId: `keccak256:${keccak256(stringToBytes(orderId))}`,
        quoteId: null,
        bridgeOrderId: null,
      });
    }
    expect(decodePaymentLog(paymentLog({ amounts: [1n, 1n, 0n, 0n], orderId: fits }), ctx)).toMatchObject({
      orderId: fits,
      bridgeOrderId: fits,
    });
    // Bytes that are not UTF-8 (viem would have decoded them to replacement characters).
    const raw = Uint8Array.from([0x71, 0x74, 0x5f, 0xff, 0xfe]);
    const words = [1n, 1n, 0n, 0n, 0xa0n, 5n].map((n) => pad(`0x${n.toString(16)}`).slice(2));
    const data = `0x${words.join("")}${Buffer.from(raw).toString("hex").padEnd(64, "0")}` as Hex;
    const log = paymentLog({ amounts: [0n, 0n, 0n, 0n], orderId: "", data });
    expect(decodePaymentLog(log, ctx)).toMatchObject({
      orderId: `keccak256:${keccak256(raw)}`,
      quoteId: null,
    });
  });

  it("refuses data that does not hold the event", () => {
    const good = paymentLog({ amounts: [1n, 1n, 0n, 0n], orderId: "qt_x" });
    const cases: RpcLog[] = [
      { ...good, data: good.data.slice(0, 2 + 64 * 3) as Hex }, // truncated head
      { ...good, data: good.data.slice(0, good.data.length - 64) as Hex }, // string bytes missing
      { ...good, topics: good.topics.slice(0, 3) }, // an indexed argument missing
      { ...good, topics: [`0x${"00".repeat(32)}`, ...good.topics.slice(1)] }, // another event
    ];
    for (const log of cases) expect(() => decodePaymentLog(log, ctx)).toThrow(InconsistentRpcDataError);
    expect(good.topics[0]).toBe(PAYMENT_TOPIC0);
  });
});
