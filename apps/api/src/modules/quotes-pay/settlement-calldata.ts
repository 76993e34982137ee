/**
 * Calldata of the settlement calls a quote hands out (docs/decisions/0040-quote-writer-calldata-and-id-pool.md): the
 * few fixed signatures the quote path encodes, written word by word instead of through viem's generic ABI encoder per
 * quote. Selectors come from the ABIs once at load. Invariant: the bytes equal viem's `encodeFunctionData` for every
 * input, errors included (invalid address, uint256 out of range, a bytes32 of another size);
 * settlement-calldata.test.ts compares them.
 */
import { type SplitterV14Quote, splitterV12Abi, splitterV14Abi } from "@tollgate/shared";
import {
  AbiEncodingBytesSizeMismatchError,
  type Address,
  erc20Abi,
  getAbiItem,
  type Hex,
  IntegerOutOfRangeError,
  InvalidAddressError,
  isAddress,
  toFunctionSelector,
} from "viem";

const SELECTORS = {
  payNative: toFunctionSelector(getAbiItem({ abi: splitterV12Abi, name: "payNative" })),
  payStable: toFunctionSelector(getAbiItem({ abi: splitterV12Abi, name: "payStable" })),
  approve: toFunctionSelector(getAbiItem({ abi: erc20Abi, name: "approve" })),
  settleNative: toFunctionSelector(getAbiItem({ abi: splitterV14Abi, name: "settleNative" })),
  settleStable: toFunctionSelector(getAbiItem({ abi: splitterV14Abi, name: "settleStable" })),
} as const;

const UINT256_MAX = 2n ** 256n - 1n;

/** One head word (64 hex digits), or a dynamic value whose tail (hex, whole words) goes after the head. */
type Arg = string | { tail: string };

function address(value: Address): string {
  if (!isAddress(value)) throw new InvalidAddressError({ address: value });
  return value.slice(2).toLowerCase().padStart(64, "0");
}

function uint256(value: bigint): string {
  if (value > UINT256_MAX || value < 0n) {
    throw new IntegerOutOfRangeError({
      max: UINT256_MAX.toString(),
      min: "0",
      signed: false,
      size: 32,
      value: value.toString(),
    });
  }
  return value.toString(16).padStart(64, "0");
}

function bytes32(value: Hex): string {
  const hex = value.length % 2 ? `0${value.slice(2)}` : value.slice(2);
  if (hex.length !== 64) throw new AbiEncodingBytesSizeMismatchError({ expectedSize: 32, value });
  return hex;
}

/** `bytes` / `string` tail: the byte length, then the bytes right-padded to whole words. */
function dynamicTail(hex: string): { tail: string } {
  const padded = hex.length % 64 === 0 ? hex : hex.padEnd(hex.length + 64 - (hex.length % 64), "0");
  return { tail: (hex.length / 2).toString(16).padStart(64, "0") + padded };
}

function bytes(value: Hex): { tail: string } {
  return dynamicTail(value.length % 2 ? `0${value.slice(2)}` : value.slice(2));
}

function string(value: string): { tail: string } {
  return dynamicTail(Buffer.from(value, "utf8").toString("hex"));
}

/** selector + head (static words in place, offsets for dynamic values) + tails, as the ABI lays them out. */
function call(selector: Hex, args: Arg[]): Hex {
  let head = selector as string;
  let tails = "";
  const headBytes = args.length * 32;
  for (const arg of args) {
    if (typeof arg === "string") {
      head += arg;
    } else {
      head += (headBytes + tails.length / 2).toString(16).padStart(64, "0");
      tails += arg.tail;
    }
  }
  return (head + tails) as Hex;
}

export function encodePayNative(paymentId: Hex, merchant: Address, ipCreator: Address, orderId: string): Hex {
  return call(SELECTORS.payNative, [
    bytes32(paymentId),
    address(merchant),
    address(ipCreator),
    string(orderId),
  ]);
}

export function encodePayStable(
  paymentId: Hex,
  token: Address,
  amount: bigint,
  merchant: Address,
  ipCreator: Address,
  orderId: string,
): Hex {
  return call(SELECTORS.payStable, [
    bytes32(paymentId),
    address(token),
    uint256(amount),
    address(merchant),
    address(ipCreator),
    string(orderId),
  ]);
}

export function encodeApprove(spender: Address, amount: bigint): Hex {
  return call(SELECTORS.approve, [address(spender), uint256(amount)]);
}

/** The v1.4 Quote struct, in the contract's field order (SPLITTER_V14_QUOTE_TYPES). */
export type QuoteStruct = SplitterV14Quote;

/** settleNative / settleStable(Quote, string orderId, bytes signature): the Quote is static, so it sits in the head. */
export function encodeSettle(
  functionName: "settleNative" | "settleStable",
  quote: QuoteStruct,
  orderId: string,
  signature: Hex,
): Hex {
  return call(SELECTORS[functionName], [
    address(quote.payer),
    address(quote.merchant),
    address(quote.token),
    uint256(quote.grossAmount),
    address(quote.ipCreator),
    uint256(quote.validUntil),
    bytes32(quote.orderIdHash),
    bytes32(quote.routeId),
    string(orderId),
    bytes(signature),
  ]);
}
