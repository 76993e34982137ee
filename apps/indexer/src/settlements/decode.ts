/**
 * Payment log decoding (SPEC §6, DESIGN §10): only logs emitted by a known splitter address of this chain
 * are decoded; look-alike events from other contracts never reach here (validate-rpc drops them).
 */
import type { SETTLEMENT_SOURCES, SettlementScheme } from "@tollgate/db";
import { PAYMENT_EVENT_ABI } from "@tollgate/shared/contracts";
import { ID_PREFIXES } from "@tollgate/shared/ids";
import { keccak256, toEventSelector } from "viem";
import type { SplitterRef } from "../config";
import { type Hex, InconsistentRpcDataError, type RpcLog } from "../rpc/rpc";

type SettlementSource = (typeof SETTLEMENT_SOURCES)[number];

export const PAYMENT_TOPIC0: Hex = toEventSelector(PAYMENT_EVENT_ABI);

export interface DecodedPayment {
  chainId: number;
  network: string;
  /** The contract that emitted the log: a splitter, or the batch-settlement escrow (claims.ts). */
  splitter: string;
  splitterVersion: SettlementSource;
  scheme: SettlementScheme;
  /** `batch-settlement` only. */
  channelId: string | null;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  payer: string;
  merchantAddress: string;
  token: string;
  totalAmount: string;
  merchantAmount: string;
  treasuryAmount: string;
  ipCreatorAmount: string;
  orderId: string;
  quoteId: string | null;
  bridgeOrderId: string | null;
}

/** Links by order id prefix: `qt_` → quote, `ord_` → bridge order (the row may arrive later; join on order_id). */
export function linkOrderId(orderId: string): { quoteId: string | null; bridgeOrderId: string | null } {
  return {
    quoteId: orderId.startsWith(ID_PREFIXES.quote) ? orderId : null,
    bridgeOrderId: orderId.startsWith(ID_PREFIXES.order) ? orderId : null,
  };
}

const WORD = 64; // hex characters per ABI word
const HEX = /^[0-9a-fA-F]*$/;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Longest order id stored as its text, in bytes (Tollgate's own quote and order ids are about 30). */
export const MAX_STORED_ORDER_ID_BYTES = 256;

/**
 * The order id as stored: the payer chooses these bytes, and PostgreSQL text cannot hold a NUL nor
 * index a long value, so such an id would fail its batch and stall the chain's indexing for good. An id that is
 * valid UTF-8, has no NUL and fits MAX_STORED_ORDER_ID_BYTES is stored exactly; any other is stored as
 * `keccak256:0x…` of its bytes, the payment id the splitter itself keys on. Such an id links no quote or order.
 */
export function storedOrderId(bytes: Uint8Array): string {
  if (bytes.length <= MAX_STORED_ORDER_ID_BYTES && !bytes.includes(0)) {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      // Not UTF-8: hashed below rather than stored with replacement characters.
    }
  }
  return `keccak256:${keccak256(bytes)}`;
}

/**
 * Decodes Payment(address indexed payer, address indexed merchant, address indexed token, uint256 totalAmount,
 * uint256 merchantAmount, uint256 treasuryAmount, uint256 ipCreatorAmount, string orderId) straight from the hex
 * (backfill speed): viem's decodeEventLog re-derived the event selector and checksummed every address per log, about
 * 20 µs a log. Same results as viem's strict decoding (decode.test.ts compares them); data that does not hold the
 * event is inconsistent RPC data: refused, never committed.
 */
function decodePaymentFields(topics: readonly Hex[], data: Hex) {
  if (topics.length !== 4 || topics[0]?.toLowerCase() !== PAYMENT_TOPIC0)
    throw new InconsistentRpcDataError("not a Payment log (topic count or signature)");
  const address = (topic: Hex) => {
    if (topic.length !== 2 + WORD) throw new InconsistentRpcDataError("malformed Payment topic");
    return `0x${topic.slice(2 + WORD - 40).toLowerCase()}`;
  };
  const hex = data.slice(2);
  // The 32-byte word at hex position `at` (characters, not bytes).
  const wordAt = (at: number) => {
    const w = hex.slice(at, at + WORD);
    if (w.length !== WORD || !HEX.test(w))
      throw new InconsistentRpcDataError("Payment data too short or not hex");
    return BigInt(`0x${w}`);
  };
  // orderId: head word 4 holds the byte offset of (length word, bytes); encoders put it at 0xa0.
  const offset = wordAt(4 * WORD);
  if (offset * 2n > BigInt(hex.length))
    throw new InconsistentRpcDataError("Payment orderId offset out of range");
  const at = Number(offset) * 2;
  const length = wordAt(at);
  if (length * 2n > BigInt(hex.length - at - WORD))
    throw new InconsistentRpcDataError("Payment orderId out of range");
  const text = hex.slice(at + WORD, at + WORD + Number(length) * 2);
  if (!HEX.test(text)) throw new InconsistentRpcDataError("Payment orderId is not hex");
  return {
    payer: address(topics[1]!),
    merchant: address(topics[2]!),
    token: address(topics[3]!),
    totalAmount: wordAt(0).toString(),
    merchantAmount: wordAt(WORD).toString(),
    treasuryAmount: wordAt(2 * WORD).toString(),
    ipCreatorAmount: wordAt(3 * WORD).toString(),
    orderId: storedOrderId(Buffer.from(text, "hex")),
  };
}

export function decodePaymentLog(
  log: RpcLog,
  ctx: { chainId: number; network: string; splitters: readonly SplitterRef[] },
): DecodedPayment {
  const splitter = ctx.splitters.find((s) => s.address === log.address.toLowerCase());
  if (!splitter) throw new Error(`log from unknown address ${log.address}`);
  const args = decodePaymentFields(log.topics, log.data);
  return {
    chainId: ctx.chainId,
    network: ctx.network,
    splitter: splitter.address,
    splitterVersion: splitter.version,
    scheme: "splitter",
    channelId: null,
    txHash: log.transactionHash.toLowerCase(),
    logIndex: Number(BigInt(log.logIndex)),
    blockNumber: BigInt(log.blockNumber),
    blockHash: log.blockHash.toLowerCase(),
    payer: args.payer,
    merchantAddress: args.merchant,
    token: args.token,
    totalAmount: args.totalAmount,
    merchantAmount: args.merchantAmount,
    treasuryAmount: args.treasuryAmount,
    ipCreatorAmount: args.ipCreatorAmount,
    orderId: args.orderId,
    ...linkOrderId(args.orderId),
  };
}
