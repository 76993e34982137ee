/**
 * The embedded facilitator's x402 `upto` part (docs/decisions/0085): the stock `@x402/evm` 2.27 `upto` facilitator
 * (`@x402/evm/upto/facilitator`) verifies the Permit2 witness authorization and settles it through the upto Permit2
 * proxy, signing with the bridge's relayer key.
 *
 * Invariants:
 * - Offered only where the manifest names Permit2 and the upto proxy at their canonical addresses (the stock code
 *   calls those addresses; docs/decisions/0080) and a relayer exists; `witness.facilitator` must be the relayer
 *   (the stock verify refuses any other: `upto_facilitator_mismatch`).
 * - Settlement sends take their nonce on the relayer key's one lane in the process (../relayer-lane.ts, shared
 *   with `exact` and `batch-settlement`), gas bounded by `settlementGasLimit`; a send not started within
 *   `SETTLE_SEND_WINDOW_MS` is abandoned unsent, so `settleLeaseMs` outlives any settlement in flight.
 * - A settle amount of 0 or above the signed ceiling is never sent (the stock settle refuses the latter too).
 */

import { rpcFetch } from "@tollgate/outbound";
import { X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { UptoEvmScheme } from "@x402/evm/upto/facilitator";
import {
  type Address,
  concatHex,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  isAddressEqual,
  keccak256,
  type LocalAccount,
} from "viem";
import type { Logger } from "../../../infra/logger";
import type { ChainContext } from "../../chains";
import { relayerLane } from "../relayer-lane";
import {
  DEFAULT_RECEIPT_TIMEOUT_MS,
  definitelyRejected,
  SETTLE_SEND_WINDOW_MS,
} from "./settle-authorization";

export const UPTO_SCHEME = "upto";

export interface UptoFacilitator {
  /** The relayer: the only `witness.facilitator` this bridge settles. */
  relayer: Address;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  /** `requirements.amount` is the amount to settle (at most the signed `permitted.amount`, never 0). */
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
  settleLeaseMs: number;
}

export interface UptoFacilitatorOptions {
  chain: ChainContext | undefined;
  relayer: LocalAccount | undefined;
  settlementGasLimit: bigint;
  now: () => Date;
  log: Logger;
  receiptTimeoutMs?: number;
}

/** True when the chain's manifest names Permit2 and the upto proxy where the stock code expects them. */
export function hasUptoContracts(chain: ChainContext | undefined): boolean {
  const x402 = chain?.deployment.x402;
  return (
    x402?.permit2 !== undefined &&
    x402.uptoPermit2Proxy !== undefined &&
    isAddressEqual(x402.permit2 as Address, X402_CANONICAL_ADDRESSES.permit2) &&
    isAddressEqual(x402.uptoPermit2Proxy as Address, X402_CANONICAL_ADDRESSES.uptoPermit2Proxy)
  );
}

/** The `upto` facilitator of one network; undefined when it cannot settle there (no contracts or no relayer). */
export function createUptoFacilitator(options: UptoFacilitatorOptions): UptoFacilitator | undefined {
  const { chain, relayer } = options;
  if (!chain || !relayer || !hasUptoContracts(chain)) return undefined;
  const receiptTimeoutMs = options.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS;
  const scheme = new UptoEvmScheme(relayerSigner(options, chain, relayer, receiptTimeoutMs));
  const zero = (payload: PaymentPayload, reason: string): SettleResponse => ({
    success: false,
    transaction: "",
    network: payload.accepted.network,
    errorReason: reason,
  });
  return {
    relayer: relayer.address,
    verify: (payload, requirements) => scheme.verify(payload, requirements),
    async settle(payload, requirements) {
      // The stock settle answers 0 as a success without a transaction; this bridge never settles 0 (decision 0085).
      if (BigInt(requirements.amount) === 0n) return zero(payload, "invalid_upto_evm_payload_zero_amount");
      return scheme.settle(payload, requirements);
    },
    settleLeaseMs: SETTLE_SEND_WINDOW_MS + receiptTimeoutMs + 30_000,
  };
}

/** The stock signer interface over the relayer key: chain reads from the registry's client, serialized sends. */
function relayerSigner(
  options: UptoFacilitatorOptions,
  chain: ChainContext,
  relayer: LocalAccount,
  receiptTimeoutMs: number,
): FacilitatorEvmSigner {
  const client = chain.client;
  const wallet = createWalletClient({
    account: relayer,
    chain: client.chain,
    transport: http(chain.deployment.rpcUrl, { timeout: 15_000, retryCount: 0, fetchFn: rpcFetch }),
  });
  return {
    getAddresses: () => [relayer.address],
    // The SDK's simplified argument types are what viem's overloaded ones accept at run time. Reads are calls from
    // the relayer: the stock verify simulates the proxy's `settle`, which only `witness.facilitator` may call.
    readContract: (args) =>
      client.readContract({ ...(args as Parameters<typeof client.readContract>[0]), account: relayer }),
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    getCode: (args) => client.getCode(args),
    waitForTransactionReceipt: (args) =>
      client.waitForTransactionReceipt({ hash: args.hash, timeout: receiptTimeoutMs }),
    sendTransaction: () => {
      // Only the ERC-20 approval gas sponsoring extension sends raw transactions; this bridge does not offer it.
      throw new Error("raw transactions are not sent by this facilitator");
    },
    async writeContract(args) {
      const sendBy = options.now().getTime() + SETTLE_SEND_WINDOW_MS;
      const call = args as Parameters<typeof client.estimateContractGas>[0];
      const gas = await client.estimateContractGas({ ...call, account: relayer });
      if (gas > options.settlementGasLimit)
        throw new Error(`gas ${gas} above the bound ${options.settlementGasLimit}`);
      const pendingCount = () =>
        client.getTransactionCount({ address: relayer.address, blockTag: "pending" });
      return relayerLane(chain.chainId, relayer.address)
        .send(pendingCount, async (nonce): Promise<{ value: Hex; used: boolean }> => {
          if (options.now().getTime() > sendBy) throw new Error("the relayer was too busy; nothing was sent");
          const data = encodeFunctionData(call as Parameters<typeof encodeFunctionData>[0]);
          const request = await wallet.prepareTransactionRequest({
            account: relayer,
            to: args.address,
            data: args.dataSuffix ? concatHex([data, args.dataSuffix]) : data,
            gas: minBig((gas * 12n) / 10n, options.settlementGasLimit),
            nonce,
            chain: client.chain,
          });
          // Signed before the broadcast, as for `exact`: a send whose answer is lost still has a known hash, which
          // the stock settle then waits for (success, or `settlement_pending`), never "nothing sent".
          const serialized = await relayer.signTransaction(
            request as Parameters<LocalAccount["signTransaction"]>[0],
          );
          const hash = keccak256(serialized);
          try {
            await wallet.sendRawTransaction({ serializedTransaction: serialized });
          } catch (error) {
            if (definitelyRejected(error)) throw error;
            options.log.error(
              { err: error, tx: hash },
              "x402 upto settle: broadcast answer lost; outcome unknown",
            );
          }
          return { value: hash, used: true };
        })
        .catch((error: unknown) => {
          options.log.error({ err: error }, "x402 upto settle: sending failed");
          throw error;
        });
    },
  };
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
