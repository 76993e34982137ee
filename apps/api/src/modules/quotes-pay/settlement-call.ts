/**
 * Builds the one transaction an agent sends for a quote (SPEC §2.4: the quote is the only source of a
 * settlement call). v1.2: payNative/payStable with order id = quote id and a zero ip creator (= the aifp1
 * split, DESIGN.md §4). v1.4: settleNative/settleStable with an EIP-712 Quote signed by the quote signer.
 * Calldata comes from ./settlement-calldata.ts (byte-identical to viem's encoder, without its per-call cost).
 */
import {
  AppError,
  orderIdHash,
  SPLITTER_V14_ROUTES,
  type SplitterV14Quote,
  splitterV14QuoteTypedData,
  ZERO_ADDRESS,
} from "@tollgate/shared";
import type { Address, Hex, LocalAccount } from "viem";
import { encodeApprove, encodePayNative, encodePayStable, encodeSettle } from "./settlement-calldata";

export interface SettlementTerms {
  quoteId: string;
  chainId: number;
  version: "1.2" | "1.4";
  splitter: Address;
  payer: Address;
  merchant: Address;
  /** null: the native coin. */
  token: Address | null;
  amount: bigint;
  expiresAt: Date;
}

export interface UnsignedSettlementCall {
  chain_id: number;
  to: Address;
  data: Hex;
  value: string;
  function: string;
  args: unknown[];
  approval?: {
    chain_id: number;
    to: Address;
    data: Hex;
    value: string;
    token: Address;
    spender: Address;
    amount: string;
  };
}

function approvalFor(terms: SettlementTerms, token: Address): UnsignedSettlementCall["approval"] {
  // Exact approvals only: the splitter may pull this amount and no more (prior-art lesson 9.5).
  return {
    chain_id: terms.chainId,
    to: token,
    data: encodeApprove(terms.splitter, terms.amount),
    value: "0",
    token,
    spender: terms.splitter,
    amount: terms.amount.toString(),
  };
}

export async function buildSettlementCall(
  terms: SettlementTerms,
  quoteSigner: LocalAccount | undefined,
): Promise<UnsignedSettlementCall> {
  const paymentId = orderIdHash(terms.quoteId);
  if (terms.version === "1.2") {
    if (terms.token === null) {
      const args = [paymentId, terms.merchant, ZERO_ADDRESS, terms.quoteId] as const;
      return {
        chain_id: terms.chainId,
        to: terms.splitter,
        data: encodePayNative(...args),
        value: terms.amount.toString(),
        function: "payNative(bytes32,address,address,string)",
        args: [...args],
      };
    }
    const args = [paymentId, terms.token, terms.amount, terms.merchant, ZERO_ADDRESS, terms.quoteId] as const;
    return {
      chain_id: terms.chainId,
      to: terms.splitter,
      data: encodePayStable(...args),
      value: "0",
      function: "payStable(bytes32,address,uint256,address,address,string)",
      args: [paymentId, terms.token, terms.amount.toString(), terms.merchant, ZERO_ADDRESS, terms.quoteId],
      approval: approvalFor(terms, terms.token),
    };
  }
  // quote-service checks v1.4 readiness first; this guards any other caller the same way.
  if (!quoteSigner) {
    throw new AppError(
      "settlement_version_unavailable",
      "this service holds no quote signer for splitter v1.4",
    );
  }
  const quote: SplitterV14Quote = {
    payer: terms.payer,
    merchant: terms.merchant,
    token: terms.token ?? ZERO_ADDRESS,
    grossAmount: terms.amount,
    ipCreator: ZERO_ADDRESS,
    validUntil: BigInt(Math.floor(terms.expiresAt.getTime() / 1000)),
    orderIdHash: paymentId,
    routeId: SPLITTER_V14_ROUTES.aifp1,
  };
  const signature = await quoteSigner.signTypedData(
    splitterV14QuoteTypedData(terms.chainId, terms.splitter, quote),
  );
  const functionName = terms.token === null ? "settleNative" : "settleStable";
  const quoteJson = {
    ...quote,
    grossAmount: quote.grossAmount.toString(),
    validUntil: quote.validUntil.toString(),
  };
  return {
    chain_id: terms.chainId,
    to: terms.splitter,
    data: encodeSettle(functionName, quote, terms.quoteId, signature),
    value: terms.token === null ? terms.amount.toString() : "0",
    function: `${functionName}((address,address,address,uint256,address,uint256,bytes32,bytes32),string,bytes)`,
    args: [quoteJson, terms.quoteId, signature],
    ...(terms.token !== null ? { approval: approvalFor(terms, terms.token) } : {}),
  };
}
