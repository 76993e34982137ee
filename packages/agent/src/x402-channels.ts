/**
 * The agent's x402 batch-settlement channels (docs/decisions/0087): listing them with their escrow state and the
 * local cumulative, and closing one. Closing asks the channel's server for a cooperative refund of the unused
 * deposit through the STOCK client (`BatchSettlementEvmScheme.refund`, a zero-charge voucher); when the server does
 * not answer or refuses, the payer starts the escrow's timed withdrawal itself, and finalizes it after the
 * channel's `withdrawDelay` (`finalize`). The escrow pays a withdrawal only from what is still unclaimed.
 */
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { BatchSettlementEvmScheme, type ClientChannelStorage } from "@x402/evm/batch-settlement/client";
import { type Address, encodeFunctionData, type Hex, type PublicClient, parseAbi } from "viem";
import type { ChainAccess } from "./chains";
import { type Clock, isoNow } from "./clock";
import { AgentError } from "./errors";
import type { AgentLedger } from "./ledger";
import type { ChannelRecord } from "./store";
import type { X402PayerDeps } from "./x402-pay";

const CONFIG =
  "(address payer, address payerAuthorizer, address receiver, address receiverAuthorizer, address token, uint40 withdrawDelay, bytes32 salt)";
const escrowAbi = parseAbi([
  "function channels(bytes32 id) view returns (uint128 balance, uint128 totalClaimed)",
  "function pendingWithdrawals(bytes32 id) view returns (uint128 amount, uint40 initiatedAt)",
  `function initiateWithdraw(${CONFIG} config, uint128 amount)`,
  `function finalizeWithdraw(${CONFIG} config)`,
]);

/** A channel as `channels list` shows it; amounts are atomic units of `asset` (decimal strings). */
export interface ChannelView {
  channelId: string;
  chainId: number;
  url: string;
  payTo: string;
  asset: string;
  symbol: string;
  decimals: number;
  deposited: string;
  /** Escrow balance and claimed total on chain. */
  balance: string;
  totalClaimed: string;
  /** Cumulative amount the server charged, as the agent's channel storage has it. */
  charged: string;
  withdrawal: { amount: string; readyAt: string } | null;
  state: "open" | "withdrawing" | "closed";
}

export type ChannelCloseResult =
  | { action: "refunded"; channelId: string; amount: string; transaction: string }
  | {
      action: "withdrawal_initiated";
      channelId: string;
      amount: string;
      transaction: string;
      readyAt: string;
    }
  | { action: "withdrawn"; channelId: string; amount: string; transaction: string };

export interface ChannelDeps {
  ledger: Pick<AgentLedger, "channelRecords" | "persist" | "load">;
  storage: ClientChannelStorage;
  signerFor: X402PayerDeps["signerFor"];
  reader(chainId: number): PublicClient;
  chain(chainId: number): ChainAccess;
  fetchImpl: typeof fetch;
  clock: Clock;
  requestTimeoutMs: number;
  txTimeoutMs: number;
}

async function escrowState(deps: ChannelDeps, record: ChannelRecord) {
  const reader = deps.reader(record.chainId);
  const id = record.channelId as Hex;
  const [[balance, totalClaimed], [pending, initiatedAt]] = await Promise.all([
    reader.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi: escrowAbi,
      functionName: "channels",
      args: [id],
    }),
    reader.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi: escrowAbi,
      functionName: "pendingWithdrawals",
      args: [id],
    }),
  ]);
  const delay = Number(record.config.withdrawDelay ?? 0);
  return {
    balance,
    totalClaimed,
    withdrawal:
      pending > 0n
        ? { amount: pending, readyAt: new Date((initiatedAt + delay) * 1000).toISOString() }
        : null,
  };
}

export async function listChannels(deps: ChannelDeps): Promise<ChannelView[]> {
  const records = Object.values(await deps.ledger.channelRecords());
  return Promise.all(
    records.map(async (record) => {
      const onChain = await escrowState(deps, record);
      const stored = await deps.storage.get(record.channelId);
      return {
        channelId: record.channelId,
        chainId: record.chainId,
        url: record.url,
        payTo: record.payTo,
        asset: record.asset,
        symbol: record.symbol,
        decimals: record.decimals,
        deposited: record.depositedAtomic,
        balance: onChain.balance.toString(),
        totalClaimed: onChain.totalClaimed.toString(),
        charged: stored?.chargedCumulativeAmount ?? onChain.totalClaimed.toString(),
        withdrawal: onChain.withdrawal && {
          amount: onChain.withdrawal.amount.toString(),
          readyAt: onChain.withdrawal.readyAt,
        },
        state: onChain.withdrawal
          ? "withdrawing"
          : onChain.balance > onChain.totalClaimed
            ? "open"
            : "closed",
      } satisfies ChannelView;
    }),
  );
}

export async function closeChannel(
  deps: ChannelDeps,
  channelId: string,
  options: { finalize?: boolean } = {},
): Promise<ChannelCloseResult> {
  const key = channelId.toLowerCase();
  const record = (await deps.ledger.channelRecords())[key];
  if (!record) throw new AgentError("channel_unknown", `no channel ${channelId} in this agent's store`);
  const onChain = await escrowState(deps, record);
  if (options.finalize) {
    if (!onChain.withdrawal)
      throw new AgentError("channel_close_failed", `${key}: no withdrawal to finalize`);
    const transaction = await sendEscrow(deps, record, "finalizeWithdraw", []);
    await markClosed(deps, record);
    const after = await escrowState(deps, record);
    return {
      action: "withdrawn",
      channelId: key,
      amount: (onChain.balance - after.balance).toString(),
      transaction,
    };
  }
  if (onChain.withdrawal) {
    throw new AgentError(
      "channel_close_failed",
      `${key}: a withdrawal is pending until ${onChain.withdrawal.readyAt}`,
    );
  }
  let refusal: unknown;
  try {
    const scheme = new BatchSettlementEvmScheme(deps.signerFor(record.chainId), { storage: deps.storage });
    const settled = await scheme.refund(record.url, {
      fetch: (input, init) =>
        deps.fetchImpl(input, { ...init, signal: AbortSignal.timeout(deps.requestTimeoutMs) }),
    });
    if (settled.success) {
      await markClosed(deps, record);
      return {
        action: "refunded",
        channelId: key,
        amount: settled.amount ?? "0",
        transaction: settled.transaction,
      };
    }
    refusal = settled.errorReason;
  } catch (error) {
    refusal = error;
  }
  // The server did not refund: the payer's own way out is the escrow's timed withdrawal of the unclaimed rest.
  const unclaimed = onChain.balance - onChain.totalClaimed;
  if (unclaimed <= 0n) {
    throw new AgentError("channel_close_failed", `${key}: nothing left to withdraw`, { cause: refusal });
  }
  const transaction = await sendEscrow(deps, record, "initiateWithdraw", [unclaimed]);
  const after = await escrowState(deps, record);
  return {
    action: "withdrawal_initiated",
    channelId: key,
    amount: unclaimed.toString(),
    transaction,
    readyAt: after.withdrawal?.readyAt ?? "",
  };
}

async function markClosed(deps: ChannelDeps, record: ChannelRecord): Promise<void> {
  record.closedAt = isoNow(deps.clock);
  await deps.ledger.persist();
}

/** Signs, sends and awaits one escrow call from the payer; throws when it reverts. */
async function sendEscrow(
  deps: ChannelDeps,
  record: ChannelRecord,
  functionName: "initiateWithdraw" | "finalizeWithdraw",
  extra: [bigint] | [],
): Promise<string> {
  const c = record.config as Record<string, string | number>;
  const config = {
    payer: c.payer as Address,
    payerAuthorizer: c.payerAuthorizer as Address,
    receiver: c.receiver as Address,
    receiverAuthorizer: c.receiverAuthorizer as Address,
    token: c.token as Address,
    withdrawDelay: Number(c.withdrawDelay),
    salt: c.salt as Hex,
  };
  const data =
    functionName === "initiateWithdraw"
      ? encodeFunctionData({ abi: escrowAbi, functionName, args: [config, extra[0] as bigint] })
      : encodeFunctionData({ abi: escrowAbi, functionName, args: [config] });
  const chain = deps.chain(record.chainId);
  const signed = await chain
    .exclusive(async () => {
      const tx = await chain.sign({ to: BATCH_SETTLEMENT_ADDRESS, data, value: "0" });
      await chain.broadcast(tx.raw);
      return tx;
    })
    .catch((error: unknown) => {
      // The node refused it (a withdrawal not due yet reverts in the gas estimate): nothing was sent.
      throw new AgentError("channel_close_failed", `${functionName} refused: ${(error as Error).message}`, {
        cause: error,
      });
    });
  if (record.withdrawInitiatedAt === undefined && functionName === "initiateWithdraw") {
    record.withdrawInitiatedAt = isoNow(deps.clock);
    await deps.ledger.persist();
  }
  const mined = await chain.waitMined(signed.hash, deps.txTimeoutMs);
  if (mined.status !== "success") {
    throw new AgentError("channel_close_failed", `${functionName} reverted (tx ${signed.hash})`);
  }
  return signed.hash;
}
