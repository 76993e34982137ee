/**
 * Settlement of a verified x402 `exact` payment: `transferWithAuthorization` sent from the relayer key (part of the
 * embedded facilitator, ./facilitator.ts).
 *
 * Invariants (docs/decisions/0013-bridge-and-facilitator-security.md):
 * - Only the SEND is serialized, on the relayer key's lane (../relayer-lane.ts, shared with `batch-settlement`
 *   deposits and claims), so nonces never collide; receipts are awaited in parallel, so a slow receipt never holds
 *   the queue.
 * - A settlement not sent within `SETTLE_SEND_WINDOW_MS` of being asked for is abandoned unsent, so a claim lease of
 *   the window + the receipt wait + a margin (`settleLeaseMs`) outlives any settlement in flight.
 * - Gas is bounded (`settlementGasLimit`, 1.2x the estimate at most); value 0 is never sent.
 * - The transaction is signed before the broadcast, so a send whose answer is lost is `settlement_pending` with a
 *   known hash, never "nothing sent".
 */

import { rpcFetch } from "@tollgate/outbound";
import { testUsdcAbi } from "@tollgate/shared";
import {
  BaseError,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
  RpcRequestError,
} from "viem";
import type { Logger } from "../../../infra/logger";
import type { ChainContext } from "../../chains";
import { relayerLane } from "../relayer-lane";
import type { ExactRequirement } from "./facilitator";
import { transferArgs } from "./verify-authorization";
import type { ExactEvmPayload, SettleResponse } from "./wire";

/** A settlement not sent within this window (waiting for the relayer lane included) is abandoned unsent. */
export const SETTLE_SEND_WINDOW_MS = 30_000;
export const DEFAULT_RECEIPT_TIMEOUT_MS = 60_000;

export function wireNetwork(version: 1 | 2, req: Pick<ExactRequirement, "wire">): string {
  return version === 1 ? req.wire.v1 : req.wire.v2;
}

export interface SettleOptions {
  chain: ChainContext | undefined;
  relayer: LocalAccount | undefined;
  settlementGasLimit: bigint;
  now: () => Date;
  log: Logger;
  receiptTimeoutMs: number;
}

export type Settle = (
  version: 1 | 2,
  payload: ExactEvmPayload,
  req: ExactRequirement,
) => Promise<SettleResponse>;

/** One settler per relayer key and process; its sends share the key's lane (../relayer-lane.ts) with every other sender. */
export function createSettler(options: SettleOptions): Settle {
  const { chain } = options;
  const receiptTimeoutMs = options.receiptTimeoutMs;
  const wallet =
    chain && options.relayer
      ? createWalletClient({
          account: options.relayer,
          chain: chain.client.chain,
          transport: http(chain.deployment.rpcUrl, { timeout: 15_000, retryCount: 0, fetchFn: rpcFetch }),
        })
      : undefined;

  return async function settle(
    version: 1 | 2,
    payload: ExactEvmPayload,
    req: ExactRequirement,
  ): Promise<SettleResponse> {
    const network = wireNetwork(version, req);
    const payer = getAddress(payload.authorization.from);
    const fail = (errorReason: string, errorMessage: string, transaction = ""): SettleResponse => ({
      success: false,
      transaction,
      network,
      payer,
      errorReason,
      errorMessage,
    });
    if (!chain || !wallet || !options.relayer)
      return fail("unexpected_settle_error", "no relayer configured");
    const relayer = options.relayer;
    if (BigInt(payload.authorization.value) === 0n || req.amount === 0n)
      return fail("invalid_exact_evm_payload_authorization_value", "a zero-value payment is refused");
    const sendBy = options.now().getTime() + SETTLE_SEND_WINDOW_MS;
    let gas: bigint;
    try {
      gas = await chain.client.estimateContractGas({
        account: relayer,
        address: req.token.address,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args: transferArgs(payload),
      });
    } catch (error) {
      options.log.warn({ err: error }, "x402 settle: simulation failed");
      return fail("invalid_transaction_state", "the transfer would not succeed");
    }
    if (gas > options.settlementGasLimit) {
      return fail("unexpected_settle_error", `gas ${gas} above the bound ${options.settlementGasLimit}`);
    }
    const lane = relayerLane(chain.chainId, relayer.address);
    // The node's pending count covers other senders of this key; the lane's count covers a lagging node.
    const pendingCount = () =>
      chain.client.getTransactionCount({ address: relayer.address, blockTag: "pending" });
    const send = lane
      .send(pendingCount, async (nonce): Promise<{ value: Hex | SettleResponse; used: boolean }> => {
        if (options.now().getTime() > sendBy)
          return {
            value: fail("unexpected_settle_error", "the relayer was too busy; nothing was sent"),
            used: false,
          };
        // Signed here so the hash is known before the broadcast: a send whose answer is lost (RPC timeout after
        // the node took it) is reported as pending with this hash, never as "nothing sent".
        const request = await wallet.prepareTransactionRequest({
          account: relayer,
          to: req.token.address,
          data: encodeFunctionData({
            abi: testUsdcAbi,
            functionName: "transferWithAuthorization",
            args: transferArgs(payload),
          }),
          // Headroom over the estimate, never above the configured bound.
          gas: minBig((gas * 12n) / 10n, options.settlementGasLimit),
          nonce,
          chain: chain.client.chain,
        });
        // The prepared request carries chainId, fees, gas and nonce: a complete transaction for the local key.
        const serialized = await relayer.signTransaction(
          request as Parameters<LocalAccount["signTransaction"]>[0],
        );
        const hash = keccak256(serialized);
        try {
          await wallet.sendRawTransaction({ serializedTransaction: serialized });
        } catch (error) {
          if (definitelyRejected(error)) throw error;
          options.log.error({ err: error, tx: hash }, "x402 settle: broadcast answer lost; outcome unknown");
          return {
            value: fail("settlement_pending", "settlement broadcast, outcome unknown", hash),
            used: true,
          };
        }
        return { value: hash, used: true };
      })
      .catch((error: unknown) => {
        options.log.error({ err: error }, "x402 settle: sending failed");
        return fail("unexpected_settle_error", "the settlement transaction could not be sent");
      });
    const hash = await send;
    if (typeof hash !== "string") return hash;
    try {
      const receipt = await chain.client.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs });
      if (receipt.status !== "success") return fail("invalid_transaction_state", "settlement reverted", hash);
    } catch (error) {
      options.log.error({ err: error, tx: hash }, "x402 settle: outcome unknown");
      return fail("settlement_pending", "settlement broadcast, outcome unknown", hash);
    }
    return { success: true, transaction: hash, network, payer };
  };
}

/** True when the node answered the broadcast with a JSON-RPC error: the transaction was refused, nothing is pending. */
export function definitelyRejected(error: unknown): boolean {
  return (
    error instanceof BaseError && error.walk((e) => e instanceof RpcRequestError) instanceof RpcRequestError
  );
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
