/**
 * Fixtures for the x402 session contract tests (docs/decisions/0080): the usual deployment (which places the x402
 * contracts at their canonical addresses), viem local accounts as payer, facilitator and receiver authorizer, and
 * the EIP-712 domains the stock `@x402/evm` SDK signs under.
 */
import { X402_CANONICAL_ADDRESSES } from "@tollgate/shared/contracts";
import {
  type Address,
  createWalletClient,
  custom,
  type Hex,
  maxUint256,
  parseAbi,
  publicActions,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { HARDHAT_PRIVATE_KEYS, readArtifact } from "../src/deploy";
import { CHAIN_ID, deployFixture, type Fixture, PAYER, setBalance, write } from "./helpers";

export const X = X402_CANONICAL_ADDRESSES;
export const NETWORK = `eip155:${CHAIN_ID}` as const;
export const permit2Abi = readArtifact("Permit2").abi;
export const uptoProxyAbi = readArtifact("X402UptoPermit2Proxy").abi;
export const escrowAbi = readArtifact("X402BatchSettlement").abi;
export const erc20ApproveAbi = parseAbi(["function approve(address spender, uint256 amount) returns (bool)"]);

export const PERMIT2_DOMAIN = { name: "Permit2", chainId: CHAIN_ID, verifyingContract: X.permit2 } as const;
export const ESCROW_DOMAIN = {
  name: "x402 Batch Settlement",
  version: "1",
  chainId: CHAIN_ID,
  verifyingContract: X.batchSettlement,
} as const;
/** The test USDC's EIP-3009 domain (tests deploy it as "USD Coin"/"2"). */
export function usdcDomain(usdc: Address) {
  return { name: "USD Coin", version: "2", chainId: CHAIN_ID, verifyingContract: usdc } as const;
}

export const UPTO_TYPES = {
  PermitWitnessTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: "Witness" },
  ],
  TokenPermissions: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
  ],
  Witness: [
    { name: "to", type: "address" },
    { name: "facilitator", type: "address" },
    { name: "validAfter", type: "uint256" },
  ],
} as const;

export const VOUCHER_TYPES = {
  Voucher: [
    { name: "channelId", type: "bytes32" },
    { name: "maxClaimableAmount", type: "uint128" },
  ],
} as const;

export const REFUND_TYPES = {
  Refund: [
    { name: "channelId", type: "bytes32" },
    { name: "nonce", type: "uint256" },
    { name: "amount", type: "uint128" },
  ],
} as const;

export const RECEIVE_TYPES = {
  ReceiveWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export interface ChannelConfig {
  payer: Address;
  payerAuthorizer: Address;
  receiver: Address;
  receiverAuthorizer: Address;
  token: Address;
  withdrawDelay: number;
  salt: Hex;
}

export interface X402Fixture extends Fixture {
  /** The payer's key (Hardhat account #4, funded with 1,000,000 test USDC). */
  payer: PrivateKeyAccount;
  /** A fresh key with native coin for gas: submits facilitator transactions. */
  facilitator: PrivateKeyAccount;
  /** A fresh key that signs claims and refunds (the channel's receiverAuthorizer); never sends transactions. */
  authorizer: PrivateKeyAccount;
}

export async function deployX402Fixture(): Promise<X402Fixture> {
  const f = await deployFixture();
  const payer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[4]);
  if (payer.address !== PAYER) throw new Error("account #4 key mismatch");
  const facilitator = privateKeyToAccount(generatePrivateKey());
  const authorizer = privateKeyToAccount(generatePrivateKey());
  await setBalance(f.provider, facilitator.address, 10n ** 21n);
  return { ...f, payer, facilitator, authorizer };
}

/** The payer lets Permit2 move its USDC (the one-time ERC-20 approval every Permit2 flow needs). */
export async function approvePermit2(f: Fixture, owner: Address = PAYER): Promise<void> {
  await write(f, {
    address: f.usdc,
    abi: erc20ApproveAbi,
    functionName: "approve",
    args: [X.permit2, maxUint256],
    account: owner,
  });
}

/** A wallet client of a local account on the fixture's chain, with public actions (what the SDK's signers wrap). */
export function accountClient(f: Fixture, account: PrivateKeyAccount) {
  return createWalletClient({
    account,
    chain: f.chain,
    transport: custom(f.provider, { retryCount: 0 }),
    pollingInterval: 10,
  }).extend(publicActions);
}

export function channelConfig(f: X402Fixture, overrides: Partial<ChannelConfig> = {}): ChannelConfig {
  return {
    payer: f.payer.address,
    payerAuthorizer: f.payer.address,
    receiver: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
    receiverAuthorizer: f.authorizer.address,
    token: f.usdc,
    withdrawDelay: 900,
    salt: `0x${"0".repeat(64)}`,
    ...overrides,
  };
}
