/**
 * Real local chains for API tests (contracts/src/local-chains.ts) and an agent wallet that pays exactly
 * what a quote says, the way an agent client would.
 */
import { localChainsForTest } from "@tollgate/contracts/chain-pool";
import { readArtifact } from "@tollgate/contracts/deploy";
import type { LocalChain, LocalChains } from "@tollgate/contracts/local-chains";
import {
  type GateChallenge,
  type LocalNetworkName,
  paymentAuthorizationMessage,
  type QuoteResponse,
  type SettlementCall,
  viemChain,
} from "@tollgate/shared";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  type Hash,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import { type HDAccount, mnemonicToAccount } from "viem/accounts";
import { DEV_MNEMONIC } from "../modules/chains";

export type { LocalChain, LocalChains };

/**
 * Deployed local chains with their manifest in `dataDir`: leased from the run's chain pool where the project has
 * one (docs/testing.md "Chains"; `stop()` gives them back as deployed), otherwise started for this file.
 */
export async function startTestChains(
  dataDir: string,
  networks: LocalNetworkName[] = ["amoy"],
): Promise<LocalChains> {
  // Test setup may read the environment: the pool is the test runner's, not the app's.
  return localChainsForTest(process.env, { dataDir, networks });
}

export interface Agent {
  account: HDAccount;
  address: Address;
  wallet: WalletClient;
  client: PublicClient;
}

/** Hardhat account `index` (>= 6 are free of roles) driving `chain` in-process. */
export function agentOn(chain: LocalChain, index: number): Agent {
  const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });
  const transport = custom(chain.provider);
  const viem = viemChain({
    chainId: chain.chainId,
    name: chain.network,
    nativeSymbol: "POL",
    rpcUrl: chain.rpcUrl,
  });
  return {
    account,
    address: account.address,
    wallet: createWalletClient({ account, chain: viem, transport }),
    client: createPublicClient({ chain: viem, transport }) as PublicClient,
  };
}

/** Sends the settlement call as returned (approval first), waits for it to be mined, returns the hash. */
export async function sendSettlement(agent: Agent, call: SettlementCall): Promise<Hash> {
  if (call.approval) {
    const approval = await agent.wallet.sendTransaction({
      account: agent.account,
      chain: null,
      to: call.approval.to as Address,
      data: call.approval.data as Hex,
      value: BigInt(call.approval.value),
    });
    await agent.client.waitForTransactionReceipt({ hash: approval });
  }
  const hash = await agent.wallet.sendTransaction({
    account: agent.account,
    chain: null,
    to: call.to as Address,
    data: call.data as Hex,
    value: BigInt(call.value),
  });
  await agent.client.waitForTransactionReceipt({ hash });
  return hash;
}

/**
 * Like {@link sendSettlement}, but signs each transaction first and keeps the signed bytes, so the identical
 * transactions can be sent again after a reorg dropped them (they return to the mempool on a real network).
 */
export async function sendSettlementRaw(
  agent: Agent,
  call: SettlementCall,
): Promise<{ hash: Hash; signed: Hex[] }> {
  const signed: Hex[] = [];
  let hash: Hash | undefined;
  for (const step of call.approval ? [call.approval, call] : [call]) {
    const request = await agent.wallet.prepareTransactionRequest({
      account: agent.account,
      chain: null,
      to: step.to as Address,
      data: step.data as Hex,
      value: BigInt(step.value),
    });
    const raw = await agent.wallet.signTransaction(request as never);
    signed.push(raw);
    hash = await agent.client.sendRawTransaction({ serializedTransaction: raw });
    await agent.client.waitForTransactionReceipt({ hash });
  }
  return { hash: hash as Hash, signed };
}

/** Sends signed transactions again (same bytes, same hashes) and waits for each to be mined. */
export async function resendRaw(agent: Agent, signed: readonly Hex[]): Promise<Hash[]> {
  const hashes: Hash[] = [];
  for (const raw of signed) {
    const hash = await agent.client.sendRawTransaction({ serializedTransaction: raw });
    await agent.client.waitForTransactionReceipt({ hash });
    hashes.push(hash);
  }
  return hashes;
}

/** The /v1/pay body, with the payer's EIP-191 authorization over quote, tx, key and expiry. */
export async function payBody(
  agent: Agent,
  quote: Pick<QuoteResponse, "quote_id">,
  txRef: Hash,
  idempotencyKey: string,
  expiresAt = new Date(Date.now() + 10 * 60_000),
): Promise<Record<string, unknown>> {
  const expires = expiresAt.toISOString();
  const signature = await agent.account.signMessage({
    message: paymentAuthorizationMessage({
      quoteId: quote.quote_id,
      txRef,
      idempotencyKey,
      expiresAt: expires,
    }),
  });
  return {
    quote_id: quote.quote_id,
    tx_ref: txRef,
    payment_authorization: { signature, expires_at: expires },
  };
}

/**
 * Mines `blocks` empty blocks, one `evm_mine` each: pooled chains have been reverted (docs/testing.md "Chains"), and
 * after `evm_revert` Hardhat's batched `hardhat_mine` can break the parent-hash chain.
 */
export async function mine(chain: LocalChain, blocks: number): Promise<void> {
  // Hardhat-only RPC methods are outside viem's typed EIP-1193 schema, hence the cast.
  for (let k = 0; k < blocks; k++) await chain.provider.request({ method: "evm_mine" } as never);
}

/** `evm_snapshot`: the id to revert to. */
export async function snapshot(chain: LocalChain): Promise<string> {
  return (await chain.provider.request({ method: "evm_snapshot" } as never)) as string;
}

/** `evm_revert`: drops every block after the snapshot (a reorg as the indexer sees it once new blocks come). */
export async function revert(chain: LocalChain, id: string): Promise<void> {
  if (!(await chain.provider.request({ method: "evm_revert", params: [id] } as never)))
    throw new Error(`evm_revert ${id} failed`);
}

/** Turns automining off (transactions wait in the mempool until `mine`) or back on. */
export async function setAutomine(chain: LocalChain, enabled: boolean): Promise<void> {
  await chain.provider.request({ method: "evm_setAutomine", params: [enabled] } as never);
}

/** A genuine SplitterV12 that Tollgate does not know: its Payment events look real but must not count. */
export async function deployRogueSplitter(agent: Agent): Promise<Address> {
  const { abi, bytecode } = readArtifact("SplitterV12");
  const hash = await agent.wallet.deployContract({
    abi,
    bytecode,
    account: agent.account,
    chain: null,
    args: [agent.address, agent.address, agent.address],
  });
  const receipt = await agent.client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error("rogue splitter deployment failed");
  return receipt.contractAddress;
}

/** Answers a gate's 402 the way an agent does: quote, settle, pay; returns the receipt. */
export async function payChallenge(
  agent: Agent,
  challenge: GateChallenge,
): Promise<{ receipt: string; quote: QuoteResponse; receiptId: string }> {
  const quoteResponse = await fetch(challenge.quote_url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      merchant_id: challenge.merchant_id,
      resource: challenge.resource,
      tier: challenge.tier,
      payer: agent.address,
    }),
  });
  if (quoteResponse.status !== 200) throw new Error(`quote failed: ${await quoteResponse.text()}`);
  const quote = (await quoteResponse.json()) as QuoteResponse;
  const tx = await sendSettlement(agent, quote.settlement_call);
  const key = `test-${quote.quote_id}`;
  const paid = await fetch(challenge.pay_url, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(await payBody(agent, quote, tx, key)),
  });
  if (paid.status !== 200) throw new Error(`pay failed: ${await paid.text()}`);
  const body = (await paid.json()) as { receipt: string; receipt_id: string };
  return { receipt: body.receipt, quote, receiptId: body.receipt_id };
}
