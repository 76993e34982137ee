/**
 * Verification of an x402 `exact` EIP-3009 payment against one requirement, for the embedded facilitator
 * (./facilitator.ts). Checks run cheapest first: network, recipient, value (never 0; v1 >=, v2 ==), validity
 * window (validBefore >= now + 6 s), EIP-712 signature (EOA), then the chain: nonce unused
 * (`authorizationState`), balance, and a simulation of `transferWithAuthorization` from the relayer.
 * Every refusal is a `VerifyResponse` with an x402 reason, never a throw.
 */
import { TRANSFER_WITH_AUTHORIZATION_TYPES, testUsdcAbi } from "@tollgate/shared";
import {
  type Address,
  getAddress,
  type Hex,
  isAddressEqual,
  type LocalAccount,
  parseSignature,
  recoverTypedDataAddress,
} from "viem";
import type { Logger } from "../../../infra/logger";
import type { ChainContext } from "../../chains";
import type { ExactRequirement } from "./facilitator";
import type { ExactEvmPayload, VerifyResponse } from "./wire";

/** Verifiers demand this much life left on an authorization (x402-wire e.4). */
export const MIN_VALID_BEFORE_MARGIN_SECONDS = 6;

export interface VerifyDeps {
  /** The bridge network's chain; undefined when it is not deployed (then every payment is refused). */
  chain: ChainContext | undefined;
  /** The relayer simulates the transfer; without one nothing verifies. */
  relayer: LocalAccount | undefined;
  now: () => Date;
  log: Logger;
}

const invalid = (invalidReason: string, invalidMessage: string, payer?: string): VerifyResponse => ({
  isValid: false,
  invalidReason,
  invalidMessage,
  ...(payer ? { payer } : {}),
});

export async function verifyAuthorization(
  deps: VerifyDeps,
  version: 1 | 2,
  payload: ExactEvmPayload,
  req: ExactRequirement,
): Promise<VerifyResponse> {
  const { chain } = deps;
  const auth = payload.authorization;
  const payer = getAddress(auth.from);
  if (!chain || chain.chainId !== req.chainId) return invalid("invalid_network", "network not served", payer);
  if (!isAddressEqual(auth.to as Address, req.payTo)) {
    return invalid(
      "invalid_exact_evm_payload_recipient_mismatch",
      `authorization pays ${auth.to}, the provider is ${req.payTo}`,
      payer,
    );
  }
  const value = BigInt(auth.value);
  if (value === 0n || req.amount === 0n)
    return invalid("invalid_exact_evm_payload_authorization_value", "a zero-value payment is refused", payer);
  if (version === 1 ? value < req.amount : value !== req.amount) {
    return invalid(
      version === 1
        ? "invalid_exact_evm_payload_authorization_value"
        : "invalid_exact_evm_payload_authorization_value_mismatch",
      `authorization value ${value}, required ${version === 1 ? "at least " : ""}${req.amount}`,
      payer,
    );
  }
  const now = BigInt(Math.floor(deps.now().getTime() / 1000));
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
    if (used) return invalid("invalid_transaction_state", "authorization nonce already used on-chain", payer);
    if (balance < value)
      return invalid("insufficient_funds", "payer balance below the authorized value", payer);
    if (!deps.relayer) return invalid("unexpected_verify_error", "no relayer configured", payer);
    await chain.client.simulateContract({
      account: deps.relayer,
      address: req.token.address,
      abi: testUsdcAbi,
      functionName: "transferWithAuthorization",
      args: transferArgs(payload),
    });
  } catch (error) {
    deps.log.warn({ err: error }, "x402 verify: chain read or simulation failed");
    return invalid("invalid_transaction_state", "the transfer would not succeed", payer);
  }
  return { isValid: true, payer };
}

/** The arguments of `transferWithAuthorization` for a payload (simulation and settlement send the same). */
export function transferArgs(payload: ExactEvmPayload) {
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
