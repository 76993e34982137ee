/**
 * Fixtures for channel tests and the voucher bench: channel configs, opened channel records, and the voucher
 * acceptance step the stock scheme runs at settle time (`handleBeforeSettle`: the signed ceiling must be exactly
 * the charged base plus the price; docs/sessions.md "Channel storage").
 */
import { randomBytes } from "node:crypto";
import type { ChannelConfigRecord } from "@tollgate/db";
import { BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN, voucherTypes } from "@x402/evm";
import type { Channel } from "@x402/evm/batch-settlement/server";
import { Redis } from "ioredis";
import { type Address, getAddress, type Hex, hashTypedData, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { recoverDigestSigner } from "../quotes-pay/recover-signer";

export { PostgresChannelStorage } from "./channel-storage";
export { type ClaimBatch, type ClaimChain, type ClaimTxStatus, createClaimBatcher } from "./claim-batcher";
export { advisoryClaimLock } from "./claim-lock";

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}` as const;

export function testChannelConfig(overrides: Partial<ChannelConfigRecord> = {}): ChannelConfigRecord {
  return {
    payer: hex(20),
    payerAuthorizer: hex(20),
    receiver: hex(20),
    receiverAuthorizer: hex(20),
    token: hex(20),
    withdrawDelay: 900,
    salt: hex(32),
    ...overrides,
  };
}

/** A random channel id (storage tests that do not need the EIP-712 binding). */
export const testChannelId = () => hex(32);

/** A channel as the scheme records it after a deposit of `balance`, nothing charged yet. */
export function openedChannel(
  channelId: string,
  config: ChannelConfigRecord,
  balance: string,
  now: number,
): Channel {
  return {
    channelId,
    channelConfig: config,
    chargedCumulativeAmount: "0",
    signedMaxClaimable: "0",
    signature: "0x",
    balance,
    totalClaimed: "0",
    withdrawRequestedAt: 0,
    refundNonce: 0,
    onchainSyncedAt: now,
    lastRequestTimestamp: now,
  };
}

export interface TestVoucher {
  maxClaimableAmount: string;
  signature: string;
}

/**
 * The settle-time acceptance of one voucher charging `price`: committed only when the signed ceiling is exactly
 * the charged base plus `price`, so the same voucher can never be committed twice.
 */
export function acceptVoucher(voucher: TestVoucher, price: bigint, now: number) {
  return (current: Channel | undefined): Channel | undefined => {
    if (!current) return current;
    if (BigInt(voucher.maxClaimableAmount) !== BigInt(current.chargedCumulativeAmount) + price)
      return current;
    return {
      ...current,
      chargedCumulativeAmount: voucher.maxClaimableAmount,
      signedMaxClaimable: voucher.maxClaimableAmount,
      signature: voucher.signature,
      lastRequestTimestamp: now,
    };
  };
}

/**
 * A payer key that signs and checks EIP-712 vouchers the way the stock scheme does (`Voucher(bytes32 channelId,
 * uint128 maxClaimableAmount)` under the batch-settlement domain of `chainId`).
 */
export function testVoucherSigner(chainId: number) {
  const account = privateKeyToAccount(generatePrivateKey());
  const domain = {
    ...BATCH_SETTLEMENT_DOMAIN,
    chainId,
    verifyingContract: getAddress(BATCH_SETTLEMENT_ADDRESS),
  };
  const message = (channelId: string, amount: string) => ({
    channelId: channelId as `0x${string}`,
    maxClaimableAmount: BigInt(amount),
  });
  return {
    address: account.address,
    sign: (channelId: string, amount: string) =>
      account.signTypedData({
        domain,
        types: voucherTypes,
        primaryType: "Voucher",
        message: message(channelId, amount),
      }),
    verify: (channelId: string, amount: string, signature: string) =>
      verifyTypedData({
        address: account.address,
        domain,
        types: voucherTypes,
        primaryType: "Voucher",
        message: message(channelId, amount),
        signature: signature as `0x${string}`,
      }),
  };
}

/** One Redis SET per call on `url` (the bench's baseline round trip). */
export async function redisRoundTrip(url: string) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  return {
    roundTrip: async (i: number) => {
      await redis.set(`bench:channel-voucher:${i % 64}`, String(i));
    },
    close: async () => {
      await redis.quit();
    },
  };
}

/**
 * The voucher signature check two ways, for the bench (docs/decisions/0092): `stock` is what the stock server runs
 * (viem `verifyTypedData`: hash, recover the public key, compare addresses); `cached` checks the same digest against
 * the payer's public key remembered from an earlier success (quotes-pay/recover-signer.ts, exact: it accepts
 * precisely what recovery accepts).
 */
export function cachedKeyVoucherVerifier(chainId: number) {
  const domain = {
    ...BATCH_SETTLEMENT_DOMAIN,
    chainId,
    verifyingContract: getAddress(BATCH_SETTLEMENT_ADDRESS),
  };
  const typed = (voucher: { channelId: string; maxClaimableAmount: string }) => ({
    domain,
    types: voucherTypes,
    primaryType: "Voucher" as const,
    message: { channelId: voucher.channelId as Hex, maxClaimableAmount: BigInt(voucher.maxClaimableAmount) },
  });
  type Voucher = { channelId: string; maxClaimableAmount: string; signature: string };
  return {
    stock: (payer: Address, voucher: Voucher) =>
      verifyTypedData({ address: payer, ...typed(voucher), signature: voucher.signature as Hex }),
    cached: (payer: Address, voucher: Voucher) =>
      recoverDigestSigner(hashTypedData(typed(voucher)), voucher.signature as Hex, payer) ===
      payer.toLowerCase(),
  };
}
