/**
 * The payer's Permit2 approval for x402 `upto` (docs/decisions/0094): `upto` pulls the charge through Permit2, so the
 * payer's token allowance to Permit2 must cover the ceiling. When it does not, the agent sends the approval itself
 * (the stock `createPermit2ApprovalTx`: the token's `approve(Permit2, max)`), then signs the payment.
 *
 * Invariants:
 * - Only for a payment that already passed the spend limits (the caller runs this after committing the spend), so
 *   no approval is ever sent for a payment the agent would refuse. The approval moves no tokens: every Permit2
 *   transfer still needs the payer's signature for one payment, bounded by that payment's ceiling.
 * - The approval is announced (step `x402_permit2_approval`, one CLI line) before the agent waits for it; a revert
 *   or a transaction not mined within `txTimeoutMs` is a PaymentFailedError naming it, and nothing is signed.
 */
import { PERMIT2_ADDRESS } from "@x402/evm";
import { createPermit2ApprovalTx, getPermit2AllowanceReadParams } from "@x402/evm/upto/client";
import { type Address, getAddress } from "viem";
import type { ChainAccess } from "./chains";
import { PaymentFailedError } from "./errors";
import type { StepSink } from "./options";
import type { X402PayerDeps } from "./x402-pay";

export interface Permit2ApprovalDeps {
  account: { address: Address };
  signerFor: X402PayerDeps["signerFor"];
  chain(chainId: number): ChainAccess;
  txTimeoutMs: number;
  onStep: StepSink;
}

export interface Permit2Need {
  chainId: number;
  asset: Address;
  symbol: string;
  /** The payment's ceiling in atomic units: the allowance it needs. */
  amount: bigint;
  /** The committed spend the payment is recorded under. */
  paymentId: string;
}

/** Ensures the payer's allowance to Permit2 covers `need.amount`; sends and waits for the approval when not. */
export async function ensurePermit2Approval(deps: Permit2ApprovalDeps, need: Permit2Need): Promise<void> {
  const signer = deps.signerFor(need.chainId);
  const read = getPermit2AllowanceReadParams({
    tokenAddress: need.asset,
    ownerAddress: deps.account.address,
  });
  const allowance = (await signer.readContract?.({
    address: read.address,
    abi: read.abi,
    functionName: read.functionName,
    args: read.args,
  })) as bigint | undefined;
  if (allowance !== undefined && allowance >= need.amount) return;
  const tx = createPermit2ApprovalTx(need.asset);
  const chain = deps.chain(need.chainId);
  const signed = await chain.exclusive(async () => {
    const prepared = await chain.sign({ to: tx.to, data: tx.data, value: "0" });
    await chain.broadcast(prepared.raw);
    return prepared;
  });
  await deps.onStep({
    type: "x402_permit2_approval",
    chainId: need.chainId,
    asset: need.symbol,
    assetAddress: getAddress(need.asset),
    spender: getAddress(PERMIT2_ADDRESS),
    transaction: signed.hash,
  });
  const failed = (
    reason: "transaction_reverted" | "transaction_not_mined",
    message: string,
    cause?: unknown,
  ) =>
    new PaymentFailedError(
      reason,
      message,
      {
        quoteId: need.paymentId,
        idempotencyKey: need.paymentId,
        approvalTxHash: signed.hash,
        resumable: false,
      },
      cause === undefined ? undefined : { cause },
    );
  let mined: Awaited<ReturnType<ChainAccess["waitMined"]>>;
  try {
    mined = await chain.waitMined(signed.hash, deps.txTimeoutMs);
  } catch (error) {
    throw failed("transaction_not_mined", `Permit2 approval ${signed.hash} not mined in time`, error);
  }
  if (mined.status !== "success")
    throw failed("transaction_reverted", `Permit2 approval ${signed.hash} reverted`);
}
