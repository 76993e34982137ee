/**
 * The embedded x402 facilitator (x402-wire e.2-e.8; issue 6): verifies an EIP-3009 `exact` payment and settles
 * it with `transferWithAuthorization` sent from the bridge's relayer key.
 *
 * Invariants:
 * - Only ERC-3009 tokens whose on-chain `name()`/`version()` equal the manifest's EIP-712 domain are offered
 *   (x402-wire e.7); native POL never is.
 * - The x402 path pays the provider in full (profile `aifp2-provider-preserving-0-v1`): the authorization's
 *   `to` must be the provider's wallet and the value the provider's price (v1 >=, v2 ==).
 * - Verification order: scheme, network, asset, recipient, amount, validity window (validBefore >= now + 6 s),
 *   EIP-712 signature (EOA), nonce unused on-chain (`authorizationState`), balance, simulation.
 * - Settlement gas is bounded (`settlementGasLimit`). Only the SEND of a relayer transaction is serialized
 *   (the relayer's account nonce is tracked here, so nonces never collide); receipts are awaited in parallel, so a
 *   slow receipt never holds the queue (issue 20). A settlement that could not be sent before its `sendBy`
 *   deadline is abandoned unsent, so a claim lease of `SETTLE_SEND_WINDOW_MS + receiptTimeoutMs` plus a margin
 *   outlives any settlement in flight.
 * - Value 0 is never verified nor settled (issue 20: no gas for nothing).
 * - One authorization settles at most once: the token's nonce map guarantees it on-chain, the bridge's claim
 *   store before that.
 */
import {
  ECONOMICS_PROFILES,
  type EvmNetworkName,
  NETWORKS,
  type TokenDeployment,
  testUsdcAbi,
} from "@tollgate/shared";
import {
  type Address,
  BaseError,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  isAddressEqual,
  keccak256,
  type LocalAccount,
  parseSignature,
  RpcRequestError,
  recoverTypedDataAddress,
} from "viem";
import type { Logger } from "../../infra/logger";
import type { ChainContext, ChainRegistry } from "../../services/chains";
import type { ExactEvmPayload, SettleResponse, VerifyResponse } from "./wire";

/** x402's EIP-3009 typed data (x402-wire e.7). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** Verifiers demand this much life left on an authorization (x402-wire e.4). */
export const MIN_VALID_BEFORE_MARGIN_SECONDS = 6;

/** A settlement not sent within this window (waiting for the send slot included) is abandoned unsent. */
export const SETTLE_SEND_WINDOW_MS = 30_000;
export const DEFAULT_RECEIPT_TIMEOUT_MS = 60_000;

export const X402_PROFILE = ECONOMICS_PROFILES["aifp2-provider-preserving-0-v1"].id;

export interface TokenOffer {
  symbol: "USDC" | "USDT";
  address: Address;
  decimals: number;
  /** EIP-712 domain as read on-chain (and equal to the manifest's). */
  name: string;
  version: string;
}

/** One payment requirement, version-independent (amount in atomic units). */
export interface ExactRequirement {
  network: EvmNetworkName;
  chainId: number;
  token: TokenOffer;
  payTo: Address;
  amount: bigint;
  maxTimeoutSeconds: number;
}

export interface Facilitator {
  /** ERC-3009 tokens on the bridge's network whose on-chain domain matches; cached after the first success. */
  offers(): Promise<TokenOffer[]>;
  verify(version: 1 | 2, payload: ExactEvmPayload, requirement: ExactRequirement): Promise<VerifyResponse>;
  settle(version: 1 | 2, payload: ExactEvmPayload, requirement: ExactRequirement): Promise<SettleResponse>;
  /** How long a claim must stay leased from the moment `settle` is called: it never runs longer. */
  settleLeaseMs: number;
  relayer: Address | undefined;
  chain: ChainContext | undefined;
}

export interface FacilitatorOptions {
  chains: ChainRegistry;
  network: EvmNetworkName;
  relayer: LocalAccount | undefined;
  settlementGasLimit: bigint;
  now: () => Date;
  log: Logger;
  /** How long settlement waits for the transaction to be mined. */
  receiptTimeoutMs?: number;
}

export function wireNetwork(version: 1 | 2, network: EvmNetworkName): string {
  return version === 1 ? NETWORKS[network].x402V1Name : NETWORKS[network].caip2;
}

const invalid = (invalidReason: string, invalidMessage: string, payer?: string): VerifyResponse => ({
  isValid: false,
  invalidReason,
  invalidMessage,
  ...(payer ? { payer } : {}),
});

export function createFacilitator(options: FacilitatorOptions): Facilitator {
  const chain = options.chains.get(options.network);
  let cachedOffers: TokenOffer[] | undefined;
  const receiptTimeoutMs = options.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS;
  /** Serializes sends only: each holds it for one nonce read (first time) and one broadcast. */
  let sendSlot: Promise<unknown> = Promise.resolve();
  /** The relayer's next account nonce as this process knows it; forgotten after a failed send. */
  let nextNonce: number | undefined;
  const wallet =
    chain && options.relayer
      ? createWalletClient({
          account: options.relayer,
          chain: chain.client.chain,
          transport: http(chain.deployment.rpcUrl, { timeout: 15_000, retryCount: 0 }),
        })
      : undefined;

  async function offers(): Promise<TokenOffer[]> {
    if (cachedOffers) return cachedOffers;
    if (!chain) return [];
    const candidates = Object.entries(chain.deployment.tokens).filter(
      (entry): entry is [string, TokenDeployment & { eip712: { name: string; version: string } }] =>
        entry[1].eip3009 && entry[1].eip712 !== undefined && (entry[0] === "USDC" || entry[0] === "USDT"),
    );
    const checked: TokenOffer[] = [];
    for (const [symbol, token] of candidates) {
      const address = getAddress(token.address);
      // x402-wire e.7: read name()/version() on-chain and refuse to advertise a token whose values differ.
      const [name, version] = await Promise.all([
        chain.client.readContract({ address, abi: testUsdcAbi, functionName: "name" }),
        chain.client.readContract({ address, abi: testUsdcAbi, functionName: "version" }),
      ]);
      if (name !== token.eip712.name || version !== token.eip712.version) {
        options.log.warn(
          { token: symbol, onChain: { name, version }, manifest: token.eip712 },
          "x402: token EIP-712 domain differs from the manifest; not offered",
        );
        continue;
      }
      checked.push({ symbol: symbol as "USDC" | "USDT", address, decimals: token.decimals, name, version });
    }
    cachedOffers = checked;
    return checked;
  }

  async function verify(
    version: 1 | 2,
    payload: ExactEvmPayload,
    req: ExactRequirement,
  ): Promise<VerifyResponse> {
    const auth = payload.authorization;
    const payer = getAddress(auth.from);
    if (!chain || chain.chainId !== req.chainId)
      return invalid("invalid_network", "network not served", payer);
    if (!isAddressEqual(auth.to as Address, req.payTo)) {
      return invalid(
        "invalid_exact_evm_payload_recipient_mismatch",
        `authorization pays ${auth.to}, the provider is ${req.payTo}`,
        payer,
      );
    }
    const value = BigInt(auth.value);
    if (value === 0n || req.amount === 0n)
      return invalid(
        "invalid_exact_evm_payload_authorization_value",
        "a zero-value payment is refused",
        payer,
      );
    if (version === 1 ? value < req.amount : value !== req.amount) {
      return invalid(
        version === 1
          ? "invalid_exact_evm_payload_authorization_value"
          : "invalid_exact_evm_payload_authorization_value_mismatch",
        `authorization value ${value}, required ${version === 1 ? "at least " : ""}${req.amount}`,
        payer,
      );
    }
    const now = BigInt(Math.floor(options.now().getTime() / 1000));
    if (BigInt(auth.validAfter) > now) {
      return invalid(
        "invalid_exact_evm_payload_authorization_valid_after",
        "authorization not valid yet",
        payer,
      );
    }
    if (BigInt(auth.validBefore) < now + BigInt(MIN_VALID_BEFORE_MARGIN_SECONDS)) {
      return invalid(
        "invalid_exact_evm_payload_authorization_valid_before",
        "authorization expired or about to",
        payer,
      );
    }
    let signer: Address;
    try {
      signer = await recoverTypedDataAddress({
        domain: {
          name: req.token.name,
          version: req.token.version,
          chainId: req.chainId,
          verifyingContract: req.token.address,
        },
        types: TRANSFER_WITH_AUTHORIZATION_TYPES,
        primaryType: "TransferWithAuthorization",
        message: {
          from: payer,
          to: getAddress(auth.to),
          value,
          validAfter: BigInt(auth.validAfter),
          validBefore: BigInt(auth.validBefore),
          nonce: auth.nonce as Hex,
        },
        signature: payload.signature as Hex,
      });
    } catch {
      return invalid("invalid_exact_evm_payload_signature", "signature cannot be recovered", payer);
    }
    if (!isAddressEqual(signer, payer)) {
      return invalid("invalid_exact_evm_payload_signature", "signature is not the payer's", payer);
    }
    try {
      const [used, balance] = await Promise.all([
        chain.client.readContract({
          address: req.token.address,
          abi: testUsdcAbi,
          functionName: "authorizationState",
          args: [payer, auth.nonce as Hex],
        }),
        chain.client.readContract({
          address: req.token.address,
          abi: testUsdcAbi,
          functionName: "balanceOf",
          args: [payer],
        }),
      ]);
      if (used)
        return invalid("invalid_transaction_state", "authorization nonce already used on-chain", payer);
      if (balance < value)
        return invalid("insufficient_funds", "payer balance below the authorized value", payer);
      if (!options.relayer) return invalid("unexpected_verify_error", "no relayer configured", payer);
      await chain.client.simulateContract({
        account: options.relayer,
        address: req.token.address,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args: transferArgs(payload),
      });
    } catch (error) {
      options.log.warn({ err: error }, "x402 verify: chain read or simulation failed");
      return invalid("invalid_transaction_state", "the transfer would not succeed", payer);
    }
    return { isValid: true, payer };
  }

  function transferArgs(payload: ExactEvmPayload) {
    const auth = payload.authorization;
    const { r, s, v, yParity } = parseSignature(payload.signature as Hex);
    return [
      getAddress(auth.from),
      getAddress(auth.to),
      BigInt(auth.value),
      BigInt(auth.validAfter),
      BigInt(auth.validBefore),
      auth.nonce as Hex,
      Number(v ?? BigInt(yParity + 27)),
      r,
      s,
    ] as const;
  }

  async function settle(
    version: 1 | 2,
    payload: ExactEvmPayload,
    req: ExactRequirement,
  ): Promise<SettleResponse> {
    const network = wireNetwork(version, req.network);
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
    const send = sendSlot.then(async (): Promise<Hex | SettleResponse> => {
      if (options.now().getTime() > sendBy)
        return fail("unexpected_settle_error", "the relayer was too busy; nothing was sent");
      try {
        // The node's pending count covers other senders of this key; the local count covers a lagging node.
        const pending = await chain.client.getTransactionCount({
          address: relayer.address,
          blockTag: "pending",
        });
        const nonce = Math.max(pending, nextNonce ?? 0);
        // Signed here so the hash is known before the broadcast: a send whose answer is lost (RPC timeout after
        // the node took it) is reported as pending with this hash, never as "nothing sent" (issue 17).
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
          nextNonce = nonce + 1;
          options.log.error({ err: error, tx: hash }, "x402 settle: broadcast answer lost; outcome unknown");
          return fail("settlement_pending", "settlement broadcast, outcome unknown", hash);
        }
        nextNonce = nonce + 1;
        return hash;
      } catch (error) {
        nextNonce = undefined;
        options.log.error({ err: error }, "x402 settle: sending failed");
        return fail("unexpected_settle_error", "the settlement transaction could not be sent");
      }
    });
    sendSlot = send.catch(() => undefined);
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
  }

  return {
    offers,
    verify,
    settle,
    // The send window, the receipt wait, and a margin for the RPC calls around them.
    settleLeaseMs: SETTLE_SEND_WINDOW_MS + receiptTimeoutMs + 30_000,
    relayer: options.relayer?.address,
    chain,
  };
}

/** True when the node answered the broadcast with a JSON-RPC error: the transaction was refused, nothing is pending. */
function definitelyRejected(error: unknown): boolean {
  return (
    error instanceof BaseError && error.walk((e) => e instanceof RpcRequestError) instanceof RpcRequestError
  );
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
