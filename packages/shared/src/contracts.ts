/**
 * Contract-level constants shared by the API (quote signer), the indexer and the tests (DESIGN §4).
 * Everything here is checked against the deployed contracts by contracts/test/*.test.ts.
 */
import { type Address, getAbiItem, type Hex, hashTypedData, keccak256, stringToHex, toBytes } from "viem";
import { splitterV14Abi } from "./abi/splitterV14.gen";
import { x402BatchSettlementAbi } from "./abi/x402BatchSettlement.gen";

export const SPLITTER_VERSIONS = ["v1.2", "v1.4"] as const;
export type SplitterVersion = (typeof SPLITTER_VERSIONS)[number];

/** Splitter v1.4 EIP-712 domain name/version (SplitterV14.EIP712_NAME / EIP712_VERSION). */
export const SPLITTER_V14_EIP712_NAME = "TollgateSplitter";
export const SPLITTER_V14_EIP712_VERSION = "1.4";

/** EIP-712 types of the v1.4 Quote, in the contract's field order (SplitterV14.QUOTE_TYPEHASH). */
export const SPLITTER_V14_QUOTE_TYPES = {
  Quote: [
    { name: "payer", type: "address" },
    { name: "merchant", type: "address" },
    { name: "token", type: "address" },
    { name: "grossAmount", type: "uint256" },
    { name: "ipCreator", type: "address" },
    { name: "validUntil", type: "uint256" },
    { name: "orderIdHash", type: "bytes32" },
    { name: "routeId", type: "bytes32" },
  ],
} as const;

export interface SplitterV14Quote {
  payer: Address;
  merchant: Address;
  /** Zero address = native coin. */
  token: Address;
  grossAmount: bigint;
  /** Zero address = none. */
  ipCreator: Address;
  /** Unix seconds, inclusive. */
  validUntil: bigint;
  /** keccak256(bytes(orderId)), see orderIdHash(). */
  orderIdHash: Hex;
  routeId: Hex;
}

export const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";

/** v1.4 route ids: the route name as a left-aligned bytes32 (Solidity `bytes32("aifp1")`). */
export const SPLITTER_V14_ROUTES = {
  aifp1: stringToHex("aifp1", { size: 32 }),
  aifp2: stringToHex("aifp2", { size: 32 }),
} as const;
export type SplitterV14RouteName = keyof typeof SPLITTER_V14_ROUTES;

/** AccessControl role ids of v1.4 (admin is the zero role). */
export const SPLITTER_V14_ROLES = {
  admin: `0x${"00".repeat(32)}` as Hex,
  signer: keccak256(toBytes("SIGNER_ROLE")),
  pauser: keccak256(toBytes("PAUSER_ROLE")),
} as const;

/** keccak256(bytes(orderId)): v1.2 paymentId and v1.4 orderIdHash (DESIGN §4). */
export function orderIdHash(orderId: string): Hex {
  return keccak256(stringToHex(orderId));
}

export function splitterV14Domain(chainId: number, verifyingContract: Address) {
  return {
    name: SPLITTER_V14_EIP712_NAME,
    version: SPLITTER_V14_EIP712_VERSION,
    chainId,
    verifyingContract,
  } as const;
}

/** Typed-data arguments for viem's signTypedData / hashTypedData. */
export function splitterV14QuoteTypedData(chainId: number, splitter: Address, quote: SplitterV14Quote) {
  return {
    domain: splitterV14Domain(chainId, splitter),
    types: SPLITTER_V14_QUOTE_TYPES,
    primaryType: "Quote",
    message: quote,
  } as const;
}

/** The digest SplitterV14.hashQuote returns. */
export function hashSplitterV14Quote(chainId: number, splitter: Address, quote: SplitterV14Quote): Hex {
  return hashTypedData(splitterV14QuoteTypedData(chainId, splitter, quote));
}

/** The Payment event every splitter version emits (identical signature on v1.2 and v1.4). */
export const PAYMENT_EVENT_ABI = getAbiItem({ abi: splitterV14Abi, name: "Payment" });

/**
 * The batch-settlement escrow's `Claimed(channelId, receiver, amount, totalClaimed)`: one channel's newly claimed
 * amount credited to its receiver (docs/decisions/0080, 0093).
 */
export const CLAIMED_EVENT_ABI = getAbiItem({ abi: x402BatchSettlementAbi, name: "Claimed" });

/** EIP-3009 `transferWithAuthorization` typed data, as x402's `exact` EVM scheme signs it (x402-wire e.7). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/**
 * Canonical addresses of the x402 session contracts (docs/decisions/0080): the stock `@x402/evm` client and
 * facilitator expect them at these CREATE2 addresses on every chain. The local chains place compatible contracts
 * here; a real network's manifest entry names them in `x402` (DeploymentManifest).
 */
export const X402_CANONICAL_ADDRESSES = {
  permit2: "0x000000000022D473030F116dDEE9F6B43aC78BA3",
  exactPermit2Proxy: "0x402085c248EeA27D92E8b30b2C58ed07f9E20001",
  uptoPermit2Proxy: "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
  batchSettlement: "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003",
  erc3009DepositCollector: "0x4020806089470a89826cB9fB1f4059150b550004",
  permit2DepositCollector: "0x4020425FAf3B746C082C2f942b4E5159887B0005",
  multicall3: "0xcA11bde05977b3631167028862bE2a173976CA11",
} as const satisfies Record<string, Address>;
export type X402ContractName = keyof typeof X402_CANONICAL_ADDRESSES;
