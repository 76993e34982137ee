/**
 * The x402 batch-settlement escrow's `Claimed` log (docs/decisions/0080, 0093): a channel's newly claimed amount,
 * credited to the channel's receiver inside the escrow. The log names the channel and the receiver only; the payer
 * and the token are in the channel's `ChannelConfig`, whose EIP-712 hash is the channel id, so the config read from
 * the claiming transaction's input is proven to be the channel's by hashing it.
 */
import { x402BatchSettlementAbi } from "@tollgate/shared";
import { CLAIMED_EVENT_ABI } from "@tollgate/shared/contracts";
import { type Address, decodeFunctionData, hashTypedData, toEventSelector } from "viem";
import { type Hex, InconsistentRpcDataError, type RpcLog } from "../rpc/rpc";

export const CLAIMED_TOPIC0: Hex = toEventSelector(CLAIMED_EVENT_ABI);

export interface DecodedClaim {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  /** Lowercase 0x-hex. */
  channelId: string;
  /** Lowercase. */
  receiver: string;
  /** The newly claimed amount (the log's `amount`), decimal. */
  amount: string;
}

const WORD = 64;
const HEX_WORDS = /^[0-9a-fA-F]{128}$/;

/** Decodes `Claimed(bytes32 indexed channelId, address indexed receiver, uint128 amount, uint128 totalClaimed)`. */
export function decodeClaimedLog(log: RpcLog): DecodedClaim {
  const [topic0, channelTopic, receiverTopic] = log.topics;
  if (log.topics.length !== 3 || topic0?.toLowerCase() !== CLAIMED_TOPIC0)
    throw new InconsistentRpcDataError("not a Claimed log (topic count or signature)");
  if (channelTopic?.length !== 2 + WORD || receiverTopic?.length !== 2 + WORD)
    throw new InconsistentRpcDataError("malformed Claimed topic");
  const data = log.data.slice(2);
  if (!HEX_WORDS.test(data)) throw new InconsistentRpcDataError("Claimed data is not two words");
  return {
    txHash: log.transactionHash.toLowerCase(),
    logIndex: Number(BigInt(log.logIndex)),
    blockNumber: BigInt(log.blockNumber),
    blockHash: log.blockHash.toLowerCase(),
    channelId: channelTopic.toLowerCase(),
    receiver: `0x${receiverTopic.slice(2 + WORD - 40).toLowerCase()}`,
    amount: BigInt(`0x${data.slice(0, WORD)}`).toString(),
  };
}

export interface ChannelConfig {
  payer: Address;
  payerAuthorizer: Address;
  receiver: Address;
  receiverAuthorizer: Address;
  token: Address;
  withdrawDelay: number;
  salt: Hex;
}

const CHANNEL_CONFIG_TYPES = {
  ChannelConfig: [
    { name: "payer", type: "address" },
    { name: "payerAuthorizer", type: "address" },
    { name: "receiver", type: "address" },
    { name: "receiverAuthorizer", type: "address" },
    { name: "token", type: "address" },
    { name: "withdrawDelay", type: "uint40" },
    { name: "salt", type: "bytes32" },
  ],
} as const;

/** The escrow's `getChannelId(config)`: the EIP-712 hash of the config under "x402 Batch Settlement"/"1". */
export function channelIdOf(chainId: number, escrow: Address, config: ChannelConfig): string {
  return hashTypedData({
    domain: { name: "x402 Batch Settlement", version: "1", chainId, verifyingContract: escrow },
    types: CHANNEL_CONFIG_TYPES,
    primaryType: "ChannelConfig",
    message: config,
  }).toLowerCase();
}

const CONFIG_KEYS = CHANNEL_CONFIG_TYPES.ChannelConfig.map((f) => f.name);

function isChannelConfig(value: unknown): value is ChannelConfig {
  return typeof value === "object" && value !== null && CONFIG_KEYS.every((key) => key in (value as object));
}

/** Escrow `multicall` nesting followed; the escrow's own calls never nest deeper. */
const MAX_MULTICALL_DEPTH = 2;

/**
 * Every `ChannelConfig` an escrow call carries (`claim`, `claimWithSignature`, the refunds, and the calls inside
 * `multicall`), or none when the input is not an escrow call (a transaction through another contract).
 */
export function channelConfigsIn(input: Hex, depth = 0): ChannelConfig[] {
  let decoded: { functionName: string; args?: readonly unknown[] };
  try {
    decoded = decodeFunctionData({ abi: x402BatchSettlementAbi, data: input });
  } catch {
    return [];
  }
  if (decoded.functionName === "multicall") {
    if (depth >= MAX_MULTICALL_DEPTH) return [];
    const calls = (decoded.args?.[0] ?? []) as readonly Hex[];
    return calls.flatMap((call) => channelConfigsIn(call, depth + 1));
  }
  const out: ChannelConfig[] = [];
  const walk = (value: unknown): void => {
    if (isChannelConfig(value)) out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) Object.values(value).forEach(walk);
  };
  walk(decoded.args ?? []);
  return out;
}
