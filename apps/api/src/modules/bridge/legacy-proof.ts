/**
 * Legacy `x-tx-hash` + `x-order-id` proofs (SPEC §1 legacy bridge flow, §5, §6; DESIGN §4, §10).
 * Invariants: the transaction is checked by THE shared verifier (../quotes-pay/payment-verifier.ts) against the
 * legs the challenge stated (emitting splitter, exactly one log for the order, merchant, native token, every leg,
 * confirmations); a payment mined before the order expired is honoured even when its confirmations arrive
 * later (prior-art §9 item 8); `x-solana-tx` proofs are refused (SPEC §1: Solana settlement disabled).
 * The v1.2 `Payment` event does not name the ip creator, so the ip-creator leg is checked from
 * the transaction itself: a direct call to the splitter (`payMatic` / `payNative`) must name the quoted ip creator;
 * a payment made through another contract is refused when the quote has a non-zero ip creator (a native value
 * transfer leaves no log to follow). With no ip creator the event's amounts already pin the leg to 0.
 * So with no ip creator quoted (address and leg both zero) the transaction is not read at all. Why that
 * drops no check (docs/decisions/0044-paid-call-and-legacy-proof.md, docs/bridge.md "Threat model"): v1.2's `SplitMath.split` gives a non-zero ip
 * creator floor(total / 10000) >= 1 wei or reverts, and pays a zero one nothing (its share stays with the merchant),
 * so a Payment log from the splitter whose ip-creator leg is exactly 0 was made with a zero ip creator, whichever
 * contract called the splitter; the event's exact merchant and treasury legs then leave nothing to redirect.
 */
import { AppError, splitterV12Abi, ZERO_ADDRESS } from "@tollgate/shared";
import { type Address, decodeFunctionData, type Hash, type Hex, isAddressEqual } from "viem";
import type { ChainContext } from "../chains";
import { type VerifiedPayment, verifyPayment } from "../quotes-pay/payment-verifier";
import { recoverMessageSigner } from "../quotes-pay/recover-signer";
import type { BridgeOrder } from "./orders";

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

export function parseTxHash(value: string): Hash {
  const trimmed = value.trim();
  if (!TX_HASH.test(trimmed)) throw new AppError("validation_failed", "x-tx-hash must be 0x + 64 hex digits");
  return trimmed.toLowerCase() as Hash;
}

export function solanaRefusal(): AppError {
  return new AppError(
    "solana_settlement_disabled",
    "Solana settlement is disabled: x-solana-tx proofs cannot be accepted and Solana payments must not be made; pay with pay_matic or x402 instead",
  );
}

/** Verifies the proof for the order; throws AppError codes (`payment_pending` while confirmations accrue). */
export async function verifyLegacyProof(
  chain: ChainContext,
  order: BridgeOrder,
  txHash: Hash,
): Promise<VerifiedPayment> {
  const terms = order.payMatic;
  if (!terms) throw new AppError("validation_failed", "this order offers no pay_matic terms");
  if (terms.chainId !== chain.chainId)
    throw new AppError("order_not_found", "order belongs to another chain");
  // The transaction (for the ip-creator check) is read alongside the receipt, not after it; the hash fixes
  // its content, so reading it first changes nothing but the wait. Its outcome is used only once the payment verified.
  // Not read at all when no ip creator is quoted: the event's exact legs prove it then (see the module comment).
  const transaction = ipCreatorQuoted(terms) ? readTransaction(chain, txHash) : undefined;
  const result = await verifyPayment(
    chain.client,
    txHash,
    {
      splitter: terms.splitter,
      orderId: order.id,
      merchant: terms.merchant,
      token: ZERO_ADDRESS,
      total: BigInt(terms.total),
      merchantAmount: BigInt(terms.merchantAmount),
      treasuryAmount: BigInt(terms.treasuryAmount),
      ipCreatorAmount: BigInt(terms.ipCreatorAmount),
    },
    chain.confirmations,
  );
  if (result.status === "pending") {
    throw new AppError(
      "payment_pending",
      result.reason === "not_found"
        ? "transaction not mined yet; retry with the same headers"
        : `payment has ${result.confirmations} of ${result.required} confirmations; retry with the same headers`,
      { headers: { "Retry-After": "2" } },
    );
  }
  if (transaction) {
    // A read that failed early (say, before this node saw the transaction) is made again, as the sequential read did.
    const tx = await transaction;
    checkIpCreator(
      tx instanceof AppError ? await readTransaction(chain, txHash) : tx,
      terms.splitter,
      terms.ipCreator,
    );
  }
  // Mined in time is what counts, not when the proof arrives (the order is kept past its TTL for this).
  if (result.blockTimestamp.getTime() > order.expiresAt) {
    throw new AppError(
      "payment_after_order_expiry",
      `payment mined at ${result.blockTimestamp.toISOString()}, after the order expired at ${new Date(order.expiresAt).toISOString()}`,
    );
  }
  return result;
}

/**
 * Whether the order names an ip creator, or an ip-creator leg, that the Payment event alone cannot prove. Zero address
 * and zero leg: the event's exact `ipCreatorAmount == 0` already proves the call named no ip creator (v1.2 pays a
 * non-zero one at least 1 wei or reverts), so the transaction need not be read.
 */
export function ipCreatorQuoted(terms: { ipCreator: string; ipCreatorAmount: string }): boolean {
  return !isAddressEqual(terms.ipCreator as Address, ZERO_ADDRESS) || BigInt(terms.ipCreatorAmount) !== 0n;
}

type Transaction = Awaited<ReturnType<ChainContext["client"]["getTransaction"]>>;

/** The transaction, or the 503 its read failed with (never a rejected promise left unobserved). */
function readTransaction(chain: ChainContext, txHash: Hash): Promise<Transaction | AppError> {
  return chain.client.getTransaction({ hash: txHash }).catch(
    (error: unknown) =>
      new AppError("chain_unavailable", "the chain RPC did not answer; retry later", {
        cause: error,
        headers: { "Retry-After": "5" },
      }),
  );
}

/** The ip-creator check (see the module comment): the ip creator the transaction paid is the quoted one. */
function checkIpCreator(tx: Transaction | AppError, splitter: string, quoted: string): void {
  if (tx instanceof AppError) throw tx;
  const mismatch = (detail: string) => new AppError("payment_ip_creator_mismatch", detail);
  if (!tx.to || !isAddressEqual(tx.to, splitter as `0x${string}`)) {
    if (isAddressEqual(quoted as `0x${string}`, ZERO_ADDRESS)) return;
    throw mismatch(
      "the payment went through another contract; its ip creator cannot be verified, pay the splitter directly",
    );
  }
  let named: string;
  try {
    const call = decodeFunctionData({ abi: splitterV12Abi, data: tx.input });
    if (call.functionName === "payMatic") named = call.args[1];
    else if (call.functionName === "payNative") named = call.args[2];
    else throw new Error(`unexpected ${call.functionName}`);
  } catch (error) {
    throw new AppError("payment_ip_creator_mismatch", "the splitter call is not a native payment", {
      cause: error,
    });
  }
  if (!isAddressEqual(named as `0x${string}`, quoted as `0x${string}`))
    throw mismatch(`the payment names ip creator ${named}, the order quoted ${quoted}`);
}

/** The header binding a legacy proof to its payer. */
export const PAYER_SIGNATURE_HEADER = "x-payer-signature";

/** What the paying address signs (EIP-191 personal_sign) to bind a proof to itself. */
export function legacyProofMessage(orderId: string, txHash: string): string {
  return ["Tollgate bridge payment proof", `order_id: ${orderId}`, `tx_hash: ${txHash.toLowerCase()}`].join(
    "\n",
  );
}

/**
 * Checks `x-payer-signature` against the verified payer. Absent: accepted unless `required` (the transition period,
 * `BRIDGE_REQUIRE_PAYER_SIGNATURE`); present: must recover to the payer, else 422 `payment_payer_mismatch`.
 */
export async function checkPayerSignature(
  header: string | undefined,
  orderId: string,
  txHash: Hash,
  payer: Address,
  required: boolean,
): Promise<void> {
  if (header === undefined) {
    if (required)
      throw new AppError(
        "validation_failed",
        `send ${PAYER_SIGNATURE_HEADER}: the payer's signature over the proof`,
      );
    return;
  }
  const signature = header.trim();
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature))
    throw new AppError("validation_failed", `${PAYER_SIGNATURE_HEADER} must be 0x + 130 hex digits`);
  let signer: Address;
  try {
    signer = recoverMessageSigner(legacyProofMessage(orderId, txHash), signature as Hex);
  } catch (error) {
    throw new AppError("validation_failed", `${PAYER_SIGNATURE_HEADER} cannot be recovered`, {
      cause: error,
    });
  }
  if (!isAddressEqual(signer, payer))
    throw new AppError("payment_payer_mismatch", "the proof is not signed by the address that paid");
}
