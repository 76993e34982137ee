/**
 * `GET /api/b2b/quote-split` and `POST /api/b2b/pay-with-split` (SPEC §2.10 legacy row, §4.2; DESIGN §4, §5):
 * the v1.2 fee-on-top legs of a price and the exact splitter call that pays them.
 * Invariants: legs come from the shared economics module (`legacy-v12-fee-on-top-100-1-v1`), the same the bridge's
 * `pay_matic` uses; the merchant leg is at least the price; the call is encoded with the generated v1.2 ABI
 * (payNative/payStable with paymentId = keccak256(orderId)), so what the caller sends is what the contract splits.
 * Amounts are decimal strings of atomic units, never JSON numbers.
 */
import {
  AppError,
  type AssetSymbol,
  checkEvmAddress,
  type EvmNetworkName,
  isId,
  newId,
  orderIdHash,
  splitFromPrice,
  splitterV12Abi,
  testUsdcAbi,
  ZERO_ADDRESS,
  ZNetworkName,
} from "@tollgate/shared";
import { type Address, encodeFunctionData, getAddress } from "viem";
import { z } from "zod";
import type { ChainRegistry } from "../chains";
import { LEGACY_PROFILE } from "./challenge";

const address = z.string().transform((value, ctx): Address => {
  const result = checkEvmAddress(value);
  if (result.ok) return result.address;
  ctx.addIssue({ code: "custom", message: result.message });
  return z.NEVER;
});

export const QuoteSplitSchema = z
  .object({
    network: ZNetworkName.optional(),
    merchant: address,
    price: z.string().regex(/^[0-9]{1,40}$/, "atomic units as a decimal string"),
    asset: z.enum(["POL", "USDC", "USDT"]).default("POL"),
    ip_creator: address.optional(),
    // Checked in the schema, so a refusal names the field.
    order_id: z
      .string()
      .refine((value) => isId("order", value), "must be a bridge order id (ord_...)")
      .optional(),
  })
  .strict();
export type QuoteSplitInput = z.infer<typeof QuoteSplitSchema>;

/** What the b2b endpoints read: the splitters of the chains, and the network used when none is named. */
export interface B2bDeps {
  chains: ChainRegistry;
  defaultNetwork: EvmNetworkName;
}

/** The v1.2 fee-on-top legs of `input.price` on the splitter of its network (DESIGN.md §4, §5). */
export function quoteSplit(deps: B2bDeps, input: QuoteSplitInput) {
  const network = input.network ?? deps.defaultNetwork;
  const chain = deps.chains.get(network);
  const splitter = chain?.deployment.splitters["v1.2"];
  if (!chain || !splitter)
    throw new AppError("settlement_version_unavailable", `no splitter v1.2 on ${network}`);
  const asset = input.asset as AssetSymbol;
  const token = asset === "POL" ? undefined : chain.deployment.tokens[asset];
  if (asset !== "POL" && (!token || !splitter.allowedTokens.includes(asset))) {
    throw new AppError("asset_not_supported", `${asset} is not accepted by splitter v1.2 on ${network}`);
  }
  const price = BigInt(input.price);
  const ipCreator = input.ip_creator ?? ZERO_ADDRESS;
  const split = splitFromPrice(LEGACY_PROFILE, price, { hasIpCreator: ipCreator !== ZERO_ADDRESS });
  if (!split.valid)
    throw new AppError("validation_failed", `no v1.2 split for price ${price}: ${split.reason}`);
  return {
    economics_profile: LEGACY_PROFILE,
    network,
    chain_id: chain.chainId,
    splitter: getAddress(splitter.address),
    asset,
    token: token ? getAddress(token.address) : ZERO_ADDRESS,
    merchant: input.merchant,
    ip_creator: ipCreator,
    price: price.toString(),
    total: split.total.toString(),
    legs: {
      merchant: split.merchant.toString(),
      treasury: split.treasury.toString(),
      ip_creator: split.ipCreator.toString(),
    },
    treasury: getAddress(splitter.treasury),
  };
}

/** The splitter call (and, for a token, its exact approval) that pays `input`'s legs; `order_id` is minted if absent. */
export function payWithSplit(deps: B2bDeps, input: QuoteSplitInput) {
  const q = quoteSplit(deps, input);
  const orderId = input.order_id ?? newId("order");
  const paymentId = orderIdHash(orderId);
  const total = BigInt(q.total);
  const call =
    q.asset === "POL"
      ? {
          chain_id: q.chain_id,
          to: q.splitter,
          value: q.total,
          function: "payNative(bytes32,address,address,string)",
          args: [paymentId, q.merchant, q.ip_creator, orderId],
          data: encodeFunctionData({
            abi: splitterV12Abi,
            functionName: "payNative",
            args: [paymentId, q.merchant, q.ip_creator, orderId],
          }),
        }
      : {
          chain_id: q.chain_id,
          to: q.splitter,
          value: "0",
          function: "payStable(bytes32,address,uint256,address,address,string)",
          args: [paymentId, q.token, q.total, q.merchant, q.ip_creator, orderId],
          data: encodeFunctionData({
            abi: splitterV12Abi,
            functionName: "payStable",
            args: [paymentId, q.token, total, q.merchant, q.ip_creator, orderId],
          }),
          // Exact approval (prior-art §9 item 5): the splitter may pull this total and nothing more.
          approval: {
            to: q.token,
            value: "0",
            function: "approve(address,uint256)",
            args: [q.splitter, q.total],
            data: encodeFunctionData({
              abi: testUsdcAbi,
              functionName: "approve",
              args: [q.splitter, total],
            }),
          },
        };
  return { ...q, order_id: orderId, payment_id: paymentId, call };
}
