/**
 * Batch-settlement claims to Tollgate merchants as settlement rows (docs/decisions/0093). Read-only: runs in the read
 * half of a step (read-batch.ts), before the batch transaction.
 *
 * Only claims whose receiver is a merchant's payout wallet are kept (the escrow is shared by everyone on the chain).
 * The payer and token come from the channel's config: first the bridge's own channel record (payment_channels, no
 * RPC), else the claiming transaction's input; either way the config must hash to the log's channel id. A claim
 * whose config neither names is reported back, not guessed.
 */
import { type Database, merchants, paymentChannels } from "@tollgate/db";
import type { Logger } from "@tollgate/shared/logger";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Address } from "viem";
import { type Hex, RetryableRpcError, type Rpc } from "../rpc/rpc";
import type { DecodedPayment } from "./decode";
import { type ChannelConfig, channelConfigsIn, channelIdOf, type DecodedClaim } from "./decode-claim";

export interface ClaimContext {
  chainId: number;
  network: string;
  /** Lowercase escrow address. */
  escrow: Address;
}

export interface ResolvedClaims {
  payments: DecodedPayment[];
  /** Claims to a merchant whose channel config could not be found (logged by the follower). */
  unresolved: DecodedClaim[];
}

/** Payout wallets (lowercase) among `addresses` that belong to a merchant. */
async function merchantWallets(db: Database, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  // Uses merchants_pay_to_evm_idx (lower(pay_to->>'evm')), as the settlement writer's merchant lookup does.
  const evm = sql<string>`lower(${merchants.payTo} ->> 'evm')`;
  const rows = await db
    .select({ evm })
    .from(merchants)
    .where(inArray(evm, [...addresses]));
  return new Set(rows.map((r) => r.evm));
}

async function storedConfigs(
  db: Database,
  chainId: number,
  channelIds: readonly string[],
): Promise<ChannelConfig[]> {
  if (channelIds.length === 0) return [];
  const rows = await db
    .select({ config: paymentChannels.config })
    .from(paymentChannels)
    .where(and(eq(paymentChannels.chainId, chainId), inArray(paymentChannels.channelId, [...channelIds])));
  return rows.map((r) => r.config);
}

async function inputConfigs(rpc: Rpc, txHashes: readonly string[]): Promise<ChannelConfig[]> {
  const out: ChannelConfig[] = [];
  for (const hash of txHashes) {
    const tx = await rpc.transactionByHash(hash as Hex);
    // The log came from this transaction in a validated block: a node that no longer knows it is behind.
    if (!tx) throw new RetryableRpcError(`transaction ${hash} not available`);
    out.push(...channelConfigsIn(tx.input));
  }
  return out;
}

/** Money reached a merchant that no settlement row shows (decision 0093): one error line each, for an operator. */
export function reportUnresolvedClaims(log: Pick<Logger, "error">, claims: readonly DecodedClaim[]): void {
  for (const claim of claims) {
    log.error(
      {
        txHash: claim.txHash,
        logIndex: claim.logIndex,
        channelId: claim.channelId,
        receiver: claim.receiver,
      },
      "batch-settlement claim to a merchant not recorded: channel config not found",
    );
  }
}

export async function resolveClaims(
  db: Database,
  rpc: Rpc,
  ctx: ClaimContext,
  claims: readonly DecodedClaim[],
): Promise<ResolvedClaims> {
  if (claims.length === 0) return { payments: [], unresolved: [] };
  const wallets = await merchantWallets(db, [...new Set(claims.map((c) => c.receiver))]);
  const ours = claims.filter((c) => wallets.has(c.receiver));
  const configs = new Map<string, ChannelConfig>();
  const learn = (list: readonly ChannelConfig[]) => {
    for (const config of list) {
      try {
        configs.set(channelIdOf(ctx.chainId, ctx.escrow, config), config);
      } catch {
        // A record that does not hash (malformed stored JSON) names no channel; the input may still.
      }
    }
  };
  learn(await storedConfigs(db, ctx.chainId, [...new Set(ours.map((c) => c.channelId))]));
  const missing = ours.filter((c) => !configs.has(c.channelId));
  learn(await inputConfigs(rpc, [...new Set(missing.map((c) => c.txHash))]));
  const payments: DecodedPayment[] = [];
  const unresolved: DecodedClaim[] = [];
  for (const claim of ours) {
    const config = configs.get(claim.channelId);
    if (!config) {
      unresolved.push(claim);
      continue;
    }
    payments.push(claimPayment(ctx, claim, config));
  }
  return { payments, unresolved };
}

/** A claim as a settlement row: all of it is the merchant's (no split), no order id (decision 0086). */
function claimPayment(ctx: ClaimContext, claim: DecodedClaim, config: ChannelConfig): DecodedPayment {
  return {
    chainId: ctx.chainId,
    network: ctx.network,
    splitter: ctx.escrow,
    splitterVersion: "x402-escrow",
    scheme: "batch-settlement",
    channelId: claim.channelId,
    txHash: claim.txHash,
    logIndex: claim.logIndex,
    blockNumber: claim.blockNumber,
    blockHash: claim.blockHash,
    payer: config.payer.toLowerCase(),
    merchantAddress: claim.receiver,
    token: config.token.toLowerCase(),
    totalAmount: claim.amount,
    merchantAmount: claim.amount,
    treasuryAmount: "0",
    ipCreatorAmount: "0",
    orderId: "",
    quoteId: null,
    bridgeOrderId: null,
  };
}
