import { CLAIMED_EVENT_ABI } from "@tollgate/shared/contracts";
import {
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  getAddress,
  type Hex,
  maxUint128,
} from "viem";
import { describe, expect, it } from "vitest";
import { InconsistentRpcDataError, type RpcLog } from "../rpc/rpc";
import { CLAIMED_TOPIC0, decodeClaimedLog } from "./decode-claim";

const CHANNEL = `0x${"c4".repeat(32)}` as Hex;
const RECEIVER = getAddress("0xabcdef0000000000000000000000000000000002");

function claimedLog(amount: bigint, totalClaimed: bigint, override: Partial<RpcLog> = {}): RpcLog {
  const topics = encodeEventTopics({
    abi: [CLAIMED_EVENT_ABI],
    eventName: "Claimed",
    args: { channelId: CHANNEL, receiver: RECEIVER },
  }) as Hex[];
  return {
    address: "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003",
    topics,
    data: encodeAbiParameters([{ type: "uint128" }, { type: "uint128" }], [amount, totalClaimed]),
    blockNumber: "0x10",
    blockHash: `0x${"AB".repeat(32)}`,
    transactionHash: `0x${"CD".repeat(32)}`,
    transactionIndex: "0x0",
    logIndex: "0x3",
    ...override,
  };
}

describe("decodeClaimedLog", () => {
  it("decodes what viem's strict decoder reads, addresses and hashes lower-case", () => {
    for (const [amount, total] of [
      [1n, 1n],
      [250_000n, 1_000_000n],
      [maxUint128, maxUint128],
    ] as const) {
      const log = claimedLog(amount, total);
      const viem = decodeEventLog({ abi: [CLAIMED_EVENT_ABI], topics: log.topics as never, data: log.data });
      const ours = decodeClaimedLog(log);
      expect(ours).toEqual({
        txHash: `0x${"cd".repeat(32)}`,
        logIndex: 3,
        blockNumber: 16n,
        blockHash: `0x${"ab".repeat(32)}`,
        channelId: CHANNEL,
        receiver: RECEIVER.toLowerCase(),
        amount: amount.toString(),
      });
      expect(ours.amount).toBe(viem.args.amount.toString());
      expect(ours.receiver).toBe(viem.args.receiver.toLowerCase());
    }
  });

  it("refuses logs that do not hold the event: wrong topic, topic count, short or non-hex data", () => {
    const good = claimedLog(5n, 5n);
    const bad: Partial<RpcLog>[] = [
      { topics: [`0x${"00".repeat(32)}`, ...good.topics.slice(1)] },
      { topics: good.topics.slice(0, 2) },
      { topics: [...good.topics, `0x${"00".repeat(32)}`] },
      { topics: [CLAIMED_TOPIC0, "0x1234", good.topics[2]!] },
      { data: "0x" },
      { data: `0x${"00".repeat(32)}` },
      { data: `0x${"zz".repeat(64)}` },
      { data: `0x${"00".repeat(96)}` },
    ];
    for (const override of bad) {
      expect(() => decodeClaimedLog({ ...good, ...override })).toThrow(InconsistentRpcDataError);
    }
  });
});
