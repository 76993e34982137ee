/**
 * Shared setup of the SplitterV14 test files (splitter-v14.*.test.ts): the fixture and hooks of splitter-setup.ts,
 * and quotes signed in TypeScript by the SIGNER_ROLE key, as the API signs them.
 */
import {
  orderIdHash,
  SPLITTER_V14_ROUTES,
  type SplitterV14Quote,
  splitterV14QuoteTypedData,
} from "@tollgate/shared/contracts";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HARDHAT_PRIVATE_KEYS } from "../src/deploy";
import { MERCHANT, PAYER, splitterV14Abi, write, ZERO } from "./helpers";
import { approveSpender, f, OWNER } from "./splitter-setup";

export { f, PAUSER, setupSplitterFixture as setupSplitterV14, TREASURY } from "./splitter-setup";
export const ADMIN = OWNER;
/** The quote signer holds SIGNER_ROLE; its key signs in TypeScript like the API will. */
export const signer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[3]);
export const notSigner = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[5]);
let n = 0;

export async function now(): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

export async function makeQuote(over: Partial<SplitterV14Quote> & { orderId?: string } = {}) {
  const orderId = over.orderId ?? `ord_v14_${++n}`;
  const quote: SplitterV14Quote = {
    payer: PAYER,
    merchant: MERCHANT,
    token: ZERO,
    grossAmount: 1_000_000n,
    ipCreator: ZERO,
    validUntil: (await now()) + 600n,
    orderIdHash: orderIdHash(orderId),
    routeId: SPLITTER_V14_ROUTES.aifp1,
    ...over,
  };
  return { quote, orderId };
}

export async function sign(quote: SplitterV14Quote, by = signer): Promise<Hex> {
  return by.signTypedData(splitterV14QuoteTypedData(31337, f.v14, quote));
}

export function settleNative(
  quote: SplitterV14Quote,
  orderId: string,
  sig: Hex,
  from: Address = PAYER,
  value?: bigint,
) {
  return write(f, {
    address: f.v14,
    abi: splitterV14Abi,
    functionName: "settleNative",
    args: [quote, orderId, sig],
    value: value ?? quote.grossAmount,
    account: from,
  });
}

export function settleStable(quote: SplitterV14Quote, orderId: string, sig: Hex, from: Address = PAYER) {
  return write(f, {
    address: f.v14,
    abi: splitterV14Abi,
    functionName: "settleStable",
    args: [quote, orderId, sig],
    account: from,
  });
}

export const approve = (token: Address, amount: bigint, from: Address = PAYER) =>
  approveSpender(f.v14, token, amount, from);

export const admin = (functionName: string, args: readonly unknown[], account: Address = ADMIN) =>
  write(f, { address: f.v14, abi: splitterV14Abi, functionName, args, account });
