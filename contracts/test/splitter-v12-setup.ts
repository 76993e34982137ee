/**
 * Shared setup of the SplitterV12 test files (splitter-v12.*.test.ts): the fixture and hooks of splitter-setup.ts,
 * and the three ways to pay v1.2 from the payer, each with a fresh order id unless one is given.
 */
import { orderIdHash } from "@tollgate/shared/contracts";
import type { Address } from "viem";
import { MERCHANT, PAYER, splitterV12Abi, write, ZERO } from "./helpers";
import { approveSpender, f } from "./splitter-setup";

export {
  f,
  OWNER,
  PAUSER,
  setupSplitterFixture as setupSplitterV12,
  TREASURY,
} from "./splitter-setup";

let n = 0;
export const nextOrder = () => `ord_v12_${++n}`;

export function payNative(value: bigint, ip: Address = ZERO, orderId = nextOrder(), from: Address = PAYER) {
  return write(f, {
    address: f.v12,
    abi: splitterV12Abi,
    functionName: "payNative",
    args: [orderIdHash(orderId), MERCHANT, ip, orderId],
    value,
    account: from,
  });
}

export const approve = (token: Address, amount: bigint, from: Address = PAYER) =>
  approveSpender(f.v12, token, amount, from);

export function payStable(
  token: Address,
  amount: bigint,
  ip: Address = ZERO,
  orderId = nextOrder(),
  merchant = MERCHANT,
) {
  return write(f, {
    address: f.v12,
    abi: splitterV12Abi,
    functionName: "payStable",
    args: [orderIdHash(orderId), token, amount, merchant, ip, orderId],
    account: PAYER,
  });
}
