import { describe, expect, it } from "vitest";
import type { Hex, RpcLog } from "../rpc/rpc";
import { PAYMENT_TOPIC0 } from "../settlements/decode";
import { CLAIMED_TOPIC0 } from "../settlements/decode-claim";
import { relevantLogs } from "./validate-rpc";

const SPLITTER = "0x00000000000000000000000000000000000000aa";
const ESCROW = "0x4020074e9df2ce1dee5a9c1b5c3f541d02a10003";
const filter = {
  sources: new Map<string, Hex>([
    [SPLITTER, PAYMENT_TOPIC0],
    [ESCROW, CLAIMED_TOPIC0],
  ]),
};
const log = (address: string, topics: Hex[], extra: Partial<RpcLog> = {}) =>
  ({ address, topics, data: "0x", logIndex: `0x${topics.length.toString(16)}`, ...extra }) as RpcLog;

describe("relevantLogs (decision 0093)", () => {
  it("keeps each address's own event only; drops swapped events, strangers, topic-less and removed logs", () => {
    const payment = log(SPLITTER.toUpperCase().replace("0X", "0x"), [PAYMENT_TOPIC0]);
    const claim = log(ESCROW, [CLAIMED_TOPIC0.toUpperCase().replace("0X", "0x") as Hex]);
    const kept = relevantLogs(
      [
        payment,
        claim,
        log(SPLITTER, [CLAIMED_TOPIC0]),
        log(ESCROW, [PAYMENT_TOPIC0]),
        log("0x00000000000000000000000000000000000000bb", [PAYMENT_TOPIC0]),
        log("0x00000000000000000000000000000000000000bb", []),
        log(ESCROW, []),
        log(ESCROW, [CLAIMED_TOPIC0], { removed: true }),
      ],
      filter,
    );
    expect(kept).toEqual([payment, claim]);
  });
});
