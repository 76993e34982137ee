/**
 * Payment log decoding (SPEC §6, DESIGN §10): only logs emitted by a known splitter address of this chain
 * are decoded; look-alike events from other contracts never reach here (validate-rpc drops them).
 */
import { PAYMENT_EVENT_ABI } from "@tollgate/shared/contracts";
import { ID_PREFIXES } from "@tollgate/shared/ids";
import { decodeEventLog, toEventSelector } from "viem";
import type { SplitterRef } from "../config";
import type { Hex, RpcLog } from "../rpc/rpc";

export const PAYMENT_TOPIC0: Hex = toEventSelector(PAYMENT_EVENT_ABI);

export interface DecodedPayment {
  chainId: number;
  network: string;
  splitter: string;
  splitterVersion: "v1.2" | "v1.4";
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

export function decodePaymentLog(
  log: RpcLog,
  ctx: { chainId: number; network: string; splitters: readonly SplitterRef[] },
): DecodedPayment {
  const splitter = ctx.splitters.find((s) => s.address === log.address.toLowerCase());
  if (!splitter) throw new Error(`log from unknown address ${log.address}`);
  const { args } = decodeEventLog({
    abi: [PAYMENT_EVENT_ABI],
    data: log.data,
    topics: log.topics as [Hex, ...Hex[]],
    strict: true,
  });
  return {
    chainId: ctx.chainId,
    network: ctx.network,
    splitter: splitter.address,
    splitterVersion: splitter.version,
    txHash: log.transactionHash.toLowerCase(),
    logIndex: Number(BigInt(log.logIndex)),
    blockNumber: BigInt(log.blockNumber),
    blockHash: log.blockHash.toLowerCase(),
    payer: args.payer.toLowerCase(),
    merchantAddress: args.merchant.toLowerCase(),
    token: args.token.toLowerCase(),
    totalAmount: args.totalAmount.toString(),
    merchantAmount: args.merchantAmount.toString(),
    treasuryAmount: args.treasuryAmount.toString(),
    ipCreatorAmount: args.ipCreatorAmount.toString(),
    orderId: args.orderId,
    ...linkOrderId(args.orderId),
  };
}
