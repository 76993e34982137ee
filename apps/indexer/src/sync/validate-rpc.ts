/**
 * RPC data checks (checklist A6, after ponder's sync-realtime): inconsistent answers are refused, never
 * committed; the follower retries with backoff. Irrelevant logs (wrong address or topic0, `removed: true`)
 * are dropped silently, because a node may legitimately return them.
 */

import { type Hex, InconsistentRpcDataError, type RpcBlock, type RpcLog } from "../rpc/rpc";
import { bloomContains } from "./bloom";

export interface LogFilter {
  /**
   * Lower-case contract address → the one event signature (topic0) read from it: `Payment` from the splitters,
   * `Claimed` from the batch-settlement escrow (decision 0093).
   */
  sources: ReadonlyMap<string, Hex>;
}

/** Drops logs that are not ours or were removed; these are not errors. */
export function relevantLogs(logs: readonly RpcLog[], filter: LogFilter): RpcLog[] {
  return logs.filter((log) => {
    const topic0 = filter.sources.get(log.address.toLowerCase());
    // No topic0 for an address that is not ours: never equal, even to a log without topics.
    return (
      log.removed !== true && topic0 !== undefined && log.topics[0]?.toLowerCase() === topic0.toLowerCase()
    );
  });
}

/**
 * Checks logs of `[from, to]` against the block headers fetched for the same range.
 * Invariants enforced: every log is inside the range; its blockHash equals the header's hash for that
 * number (when fetched); (blockHash, logIndex) is unique; a header whose bloom says our address and
 * topic are present has at least one log (only checked for blocks in `bloomChecked`).
 */
export function validateLogs(
  logs: readonly RpcLog[],
  headers: ReadonlyMap<bigint, RpcBlock>,
  range: { from: bigint; to: bigint },
  filter: LogFilter,
  bloomChecked: ReadonlySet<bigint>,
): void {
  const seen = new Set<string>();
  const blocksWithLogs = new Set<bigint>();
  for (const log of logs) {
    if (!log.blockHash || !log.blockNumber || !log.logIndex || !log.transactionHash) {
      throw new InconsistentRpcDataError("log without block hash, number, index or transaction hash");
    }
    const number = BigInt(log.blockNumber);
    if (number < range.from || number > range.to) {
      throw new InconsistentRpcDataError(`log from block ${number} outside the requested range`, number);
    }
    const header = headers.get(number);
    if (!header) throw new InconsistentRpcDataError(`no header fetched for block ${number}`, number);
    if (header.hash.toLowerCase() !== log.blockHash.toLowerCase()) {
      throw new InconsistentRpcDataError(`log blockHash does not match block ${number}`, number);
    }
    const key = `${log.blockHash.toLowerCase()}:${BigInt(log.logIndex)}`;
    if (seen.has(key)) throw new InconsistentRpcDataError(`duplicate logIndex in block ${number}`, number);
    seen.add(key);
    blocksWithLogs.add(number);
  }
  for (const number of bloomChecked) {
    if (blocksWithLogs.has(number)) continue;
    const header = headers.get(number);
    if (!header) continue;
    const inBloom = [...filter.sources].some(
      ([address, topic0]) =>
        bloomContains(header.logsBloom, address as Hex) && bloomContains(header.logsBloom, topic0),
    );
    if (inBloom) {
      throw new InconsistentRpcDataError(
        `block ${number} bloom matches our filter but no logs were returned`,
        number,
        "bloom",
      );
    }
  }
}

/** Consecutive headers must chain by parent hash; a break means the node changed its mind mid-read. */
export function validateHeaderChain(headers: ReadonlyMap<bigint, RpcBlock>): void {
  for (const [number, header] of headers) {
    if (BigInt(header.number) !== number)
      throw new InconsistentRpcDataError(`header for ${number} reports ${header.number}`, number);
    const parent = headers.get(number - 1n);
    if (parent && parent.hash.toLowerCase() !== header.parentHash.toLowerCase()) {
      throw new InconsistentRpcDataError(`block ${number} does not extend block ${number - 1n}`, number);
    }
  }
}
