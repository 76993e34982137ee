/**
 * The stock `batch-settlement` facilitator's signer over the bridge relayer key (docs/decisions/0086): reads and
 * receipts through the chain's public client; every write is signed and sent on the relayer key's lane
 * (../relayer-lane.ts), so deposits, claims and `exact` settlements never race each other for a nonce.
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

export function relayerFacilitatorSigner(chain: ChainContext, relayer: LocalAccount): FacilitatorEvmSigner {
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
      await wallet.sendRawTransaction({ serializedTransaction: serialized });
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
        ...(args.timeout ? { timeout: args.timeout } : {}),
      }),
    getCode: (args) => chain.client.getCode({ address: args.address }),
  };
}
