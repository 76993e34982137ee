/**
 * Test and benchmark fixtures: the stock `@x402/fetch` + `@x402/evm` 2.27 clients paying through the bridge, one for
 * `batch-settlement` (a channel per payer) and one for `exact`, each recording the `PAYMENT-SIGNATURE` headers it
 * sends. Not used by production code.
 */
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
  signVoucher,
} from "@x402/evm/batch-settlement/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Agent } from "../../../test/chains";
import { wellKnownDevKeys } from "../../chains";

const keyOf = (agent: Agent) => wellKnownDevKeys().get(agent.address.toLowerCase()) as Hex;

function recordingFetch(sent: string[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get("PAYMENT-SIGNATURE");
    if (header) sent.push(header);
    return fetch(request);
  };
}

/** A stock batch-settlement payer for `agent` that deposits `deposit` units of `usdc` when it opens a channel. */
export function stockBatchPayer(agent: Agent, network: string, usdc: Address, deposit: bigint) {
  const account = privateKeyToAccount(keyOf(agent));
  const signer = toClientEvmSigner(account, agent.client);
  const scheme = new BatchClient(signer, {
    storage: new InMemoryClientChannelStorage(),
    depositStrategy: () => deposit.toString(),
  });
  const client = new x402Client().register(network as `${string}:${string}`, scheme);
  client.setSpendControls({
    allowedAssets: [
      { network: network as `${string}:${string}`, asset: usdc, maxAmountPerPayment: deposit.toString() },
    ],
  });
  const sent: string[] = [];
  return {
    account,
    scheme,
    sent,
    fetch: wrapFetchWithPayment(recordingFetch(sent), client),
    /** The payer's EIP-712 voucher for `channelId` at cumulative `amount` (the stock client's signing). */
    signVoucher: (channelId: string, amount: bigint) =>
      signVoucher(signer, channelId as Hex, amount.toString(), network),
  };
}

/** A stock `exact` (EIP-3009) payer for `agent`, each payment at most `maxAmount` units of `usdc`. */
export function stockExactPayer(agent: Agent, network: string, usdc: Address, maxAmount: bigint) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(keyOf(agent)) });
  client.setSpendControls({
    allowedAssets: [
      { network: network as `${string}:${string}`, asset: usdc, maxAmountPerPayment: maxAmount.toString() },
    ],
  });
  const sent: string[] = [];
  return { sent, fetch: wrapFetchWithPayment(recordingFetch(sent), client) };
}
