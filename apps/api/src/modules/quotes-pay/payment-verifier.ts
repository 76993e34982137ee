/**
 * The one on-chain payment verifier (DESIGN.md §6, §10), shared by /v1/pay and the bridge. It reads the
 * transaction receipt itself, accepts only `Payment` logs emitted by the known splitter, requires exactly
 * one log for the order id, checks every field and leg exactly, and applies the confirmation policy.
 */
import { AppError, PAYMENT_EVENT_ABI } from "@tollgate/shared";
import {
  type Address,
  decodeEventLog,
  type Hash,
  type PublicClient,
  TransactionReceiptNotFoundError,
  toEventSelector,
} from "viem";

export interface ExpectedPayment {
  splitter: Address;
  orderId: string;
  /** When set, the event's payer (the transaction sender) must be this address. */
  payer?: Address;
  merchant: Address;
  /** Zero address for the native coin. */
  token: Address;
  total: bigint;
  merchantAmount: bigint;
  treasuryAmount: bigint;
  ipCreatorAmount: bigint;
}

export type VerifiedPayment = {
  status: "confirmed";
  txHash: Hash;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hash;
  blockTimestamp: Date;
  confirmations: number;
  payer: Address;
};

export type PendingPayment = {
  status: "pending";
  /** `not_found`: not mined (or not seen by this node) yet. */
  reason: "not_found" | "confirmations";
  confirmations: number;
  required: number;
};

const PAYMENT_TOPIC = toEventSelector(PAYMENT_EVENT_ABI);
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function rpcDown(error: unknown): AppError {
  return new AppError("chain_unavailable", "the chain RPC did not answer; retry later", {
    cause: error,
    headers: { "Retry-After": "5" },
  });
}

function wellFormed(receipt: unknown): receipt is Awaited<ReturnType<PublicClient["getTransactionReceipt"]>> {
  if (!receipt || typeof receipt !== "object") return false;
  const r = receipt as Record<string, unknown>;
  return (
    (r.status === "success" || r.status === "reverted") &&
    typeof r.blockNumber === "bigint" &&
    typeof r.blockHash === "string" &&
    /^0x[0-9a-fA-F]{64}$/.test(r.blockHash) &&
    Array.isArray(r.logs)
  );
}

type TransactionReceipt = Awaited<ReturnType<PublicClient["getTransactionReceipt"]>>;
type Block = Awaited<ReturnType<PublicClient["getBlock"]>>;

/** The chain's head and the block at `blockNumber`, read together (confirmations, canonical block, timestamp). */
function readConfirmation(client: PublicClient, blockNumber: bigint): Promise<[bigint, Block]> {
  return Promise.all([client.getBlockNumber({ cacheTime: 0 }), client.getBlock({ blockNumber })]);
}

/**
 * Starts the transaction-receipt read now, for `verifyPayment` to use later (/v1/pay overlaps it with
 * its database work), and the head and block reads as soon as a successful receipt is in, so they overlap that work
 * too. They are read after the receipt, as `verifyPayment` itself would; nothing is judged here. Failures are kept
 * for `verifyPayment` to judge, never left unhandled.
 */
export function prefetchTransactionReceipt(client: PublicClient, txHash: Hash): PrefetchedReceipt {
  const read = client.getTransactionReceipt({ hash: txHash });
  read.catch(() => {});
  const confirmation = read.then((receipt) =>
    wellFormed(receipt) && receipt.status === "success"
      ? readConfirmation(client, receipt.blockNumber)
      : undefined,
  );
  confirmation.catch(() => {});
  return { txHash, read, confirmation };
}

export interface PrefetchedReceipt {
  txHash: Hash;
  read: Promise<TransactionReceipt>;
  /** Head and the receipt's block, started once `read` gave a successful receipt. */
  confirmation: Promise<[bigint, Block] | undefined>;
}

/**
 * `prefetched` (from `prefetchTransactionReceipt` on the same client) is used instead of a new read when it is for
 * `txHash`; every check below applies to it unchanged.
 */
export async function verifyPayment(
  client: PublicClient,
  txHash: Hash,
  expected: ExpectedPayment,
  requiredConfirmations: number,
  prefetched?: PrefetchedReceipt,
): Promise<VerifiedPayment | PendingPayment> {
  const started = prefetched?.txHash === txHash ? prefetched : undefined;
  let receipt: TransactionReceipt;
  try {
    receipt = await (started ? started.read : client.getTransactionReceipt({ hash: txHash }));
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) {
      return { status: "pending", reason: "not_found", confirmations: 0, required: requiredConfirmations };
    }
    throw rpcDown(error);
  }
  // A garbage answer is the node's fault, not a revert: never tell the agent it reverted.
  if (!wellFormed(receipt)) throw rpcDown(new Error(`malformed transaction receipt for ${txHash}`));
  if (receipt.status !== "success") throw new AppError("tx_reverted", `transaction ${txHash} reverted`);

  // Only logs the splitter itself emitted count: any contract it calls can emit a look-alike event.
  const fromSplitter = receipt.logs.filter(
    (log) => same(log.address, expected.splitter) && log.topics[0] === PAYMENT_TOPIC,
  );
  const matching = fromSplitter
    .map((log) => ({
      log,
      event: decodeEventLog({ abi: [PAYMENT_EVENT_ABI], data: log.data, topics: log.topics }),
    }))
    .filter(({ event }) => event.args.orderId === expected.orderId);
  if (matching.length === 0) {
    const lookAlikes =
      receipt.logs.filter((log) => log.topics[0] === PAYMENT_TOPIC).length - fromSplitter.length;
    throw new AppError(
      "payment_log_missing",
      `no Payment log for order ${expected.orderId} from splitter ${expected.splitter}` +
        (lookAlikes > 0 ? ` (${lookAlikes} look-alike log(s) from other contracts ignored)` : ""),
    );
  }
  if (matching.length > 1)
    throw new AppError("payment_log_ambiguous", `${matching.length} Payment logs for one order`);
  const { log, event } = matching[0]!;
  const args = event.args;
  if (expected.payer && !same(args.payer, expected.payer)) {
    throw new AppError("payment_payer_mismatch", `paid by ${args.payer}, quoted for ${expected.payer}`);
  }
  if (!same(args.merchant, expected.merchant)) {
    throw new AppError(
      "payment_merchant_mismatch",
      `paid to ${args.merchant}, expected ${expected.merchant}`,
    );
  }
  if (!same(args.token, expected.token)) {
    throw new AppError("payment_token_mismatch", `paid in ${args.token}, expected ${expected.token}`);
  }
  const legs: [string, bigint, bigint][] = [
    ["total", args.totalAmount, expected.total],
    ["merchant", args.merchantAmount, expected.merchantAmount],
    ["treasury", args.treasuryAmount, expected.treasuryAmount],
    ["ip creator", args.ipCreatorAmount, expected.ipCreatorAmount],
  ];
  for (const [leg, paid, want] of legs) {
    if (paid !== want)
      throw new AppError("payment_amount_mismatch", `${leg} leg is ${paid}, expected ${want}`);
  }

  let head: bigint;
  let block: Block;
  try {
    [head, block] = (await started?.confirmation) ?? (await readConfirmation(client, receipt.blockNumber));
  } catch (error) {
    throw rpcDown(error);
  }
  // The receipt's block is no longer canonical: a reorg is under way; ask again later.
  if (block.hash !== receipt.blockHash) {
    return { status: "pending", reason: "confirmations", confirmations: 0, required: requiredConfirmations };
  }
  const confirmations = Number(head - receipt.blockNumber + 1n);
  if (confirmations < requiredConfirmations) {
    return { status: "pending", reason: "confirmations", confirmations, required: requiredConfirmations };
  }
  return {
    status: "confirmed",
    txHash,
    logIndex: log.logIndex ?? 0,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    blockTimestamp: new Date(Number(block.timestamp) * 1000),
    confirmations,
    payer: args.payer,
  };
}
