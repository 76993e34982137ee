/**
 * The stock `batch-settlement` facilitator's signer over the bridge relayer key (docs/decisions/0086): reads and
 * receipts through the chain's public client; every write is signed and sent on the relayer key's lane
 * (../relayer-lane.ts), so deposits, claims and `exact` settlements never race each other for a nonce.
 *
 * Invariants (docs/decisions/0094): a broadcast whose answer was lost (the node may hold the transaction) still
 * yields the transaction's hash, so the stock facilitator reports `settlement_pending` for it and never a failure
 * that would invite a second payment; a receipt is awaited at most `receiptTimeoutMs`, after which the outcome is
 * unknown (pending) rather than the request hanging.
 */
import { rpcFetch } from "@tollgate/outbound";
import type { FacilitatorEvmSigner } from "@x402/evm";
import {
  type Abi,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
  type TypedDataDefinition,
  verifyTypedData,
} from "viem";
import type { ChainContext } from "../../chains";
import { relayerLane } from "../relayer-lane";
import { DEFAULT_RECEIPT_TIMEOUT_MS, definitelyRejected } from "./settle-authorization";

export function relayerFacilitatorSigner(
  chain: ChainContext,
  relayer: LocalAccount,
  receiptTimeoutMs = DEFAULT_RECEIPT_TIMEOUT_MS,
): FacilitatorEvmSigner {
  const wallet = createWalletClient({
    account: relayer,
    chain: chain.client.chain,
    transport: http(chain.deployment.rpcUrl, { timeout: 15_000, retryCount: 0, fetchFn: rpcFetch }),
  });
  const lane = relayerLane(chain.chainId, relayer.address);
  const pendingCount = () =>
    chain.client.getTransactionCount({ address: relayer.address, blockTag: "pending" });

  /** Signs then broadcasts on the lane; the hash is known before the broadcast. */
  const sendData = (to: Hex, data: Hex, gas?: bigint): Promise<Hex> =>
    lane.send(pendingCount, async (nonce) => {
      const request = await wallet.prepareTransactionRequest({
        account: relayer,
        to,
        data,
        nonce,
        chain: chain.client.chain,
        ...(gas ? { gas } : {}),
      });
      const serialized = await relayer.signTransaction(
        request as Parameters<LocalAccount["signTransaction"]>[0],
      );
      try {
        await wallet.sendRawTransaction({ serializedTransaction: serialized });
      } catch (error) {
        // Refused by the node: nothing was sent. Otherwise the node may have it: its receipt decides.
        if (definitelyRejected(error)) throw error;
      }
      return { value: keccak256(serialized), used: true };
    });

  return {
    getAddresses: () => [relayer.address],
    readContract: (args) =>
      chain.client.readContract({
        address: args.address,
        abi: args.abi as Abi,
        functionName: args.functionName,
        args: args.args ?? [],
      }),
    verifyTypedData: (args) =>
      verifyTypedData({
        address: args.address,
        signature: args.signature,
        ...(args as unknown as TypedDataDefinition),
      }),
    writeContract: (args) =>
      sendData(
        args.address,
        `${encodeFunctionData({ abi: args.abi as Abi, functionName: args.functionName, args: args.args })}${(args.dataSuffix ?? "0x").slice(2)}` as Hex,
        args.gas,
      ),
    sendTransaction: (args) => sendData(args.to, args.data),
    waitForTransactionReceipt: (args) =>
      chain.client.waitForTransactionReceipt({
        hash: args.hash,
        timeout: args.timeout ?? receiptTimeoutMs,
      }),
    getCode: (args) => chain.client.getCode({ address: args.address }),
  };
}
