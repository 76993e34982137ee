/**
 * The journal that keeps a local chain across restarts (docs/decisions/0058). Hardhat 2 has no state dump, but its
 * blocks are deterministic: with the same genesis date, the same accepted calls in the same order and the same block
 * timestamps, it mines the same blocks with the same hashes (mixHash seed and coinbase are fixed). So every
 * state-changing JSON-RPC call the chain accepts is appended to `journal.ndjson` (one JSON line, fsynced before the
 * caller gets its answer) with the timestamp of the first block it mined, how many, and the head hash after it;
 * a restart replays the lines on a chain with the recorded genesis date and checks the head hash.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import type { EIP1193Provider, Hex } from "viem";

/** One accepted state-changing call. */
export interface JournalEntry {
  /** JSON-RPC method and params, exactly as the chain accepted them. */
  m: string;
  p: unknown[];
  /** Timestamp (seconds) of the first block the call mined; absent when it mined none. */
  t?: number;
  /** Blocks the call mined (absent: none). */
  n?: number;
  /** Head block hash after the call. */
  h: Hex;
}

export class JournalCorruptError extends Error {
  override readonly name = "JournalCorruptError";
}

/** Methods that change chain state without being `hardhat_*` or `evm_*`. */
const STATE_CHANGING_ETH = new Set(["eth_sendTransaction", "eth_sendRawTransaction"]);
/** `hardhat_*` / `evm_*` methods that only read (or only touch tracing and logging): never journaled. */
const READ_ONLY = new Set([
  "hardhat_metadata",
  "hardhat_getAutomine",
  "hardhat_getStackTraceFailuresCount",
  "hardhat_addCompilationResult",
  "hardhat_setLoggingEnabled",
  "hardhat_setVerboseTracing",
]);
/** Calls that only steer the next block's time: the recorded block timestamps replace them on replay. */
const TIME_ONLY = new Set(["evm_increaseTime", "evm_setNextBlockTimestamp"]);

export function isStateChanging(method: string): boolean {
  if (STATE_CHANGING_ETH.has(method)) return true;
  return (method.startsWith("hardhat_") || method.startsWith("evm_")) && !READ_ONLY.has(method);
}

/**
 * Refused on a journaled chain: a reset throws the kept state away, and blocks mined by a timer are not the answer
 * to any call, so they could not be replayed. Answers the reason, or undefined when the call may go ahead.
 */
function refusal(method: string, params: readonly unknown[]): string | undefined {
  if (method === "hardhat_reset") return "hardhat_reset is refused on a local chain kept across restarts";
  if (method === "evm_setIntervalMining" && Number(params[0] ?? 0) !== 0)
    return "interval mining is refused on a local chain kept across restarts (mine with evm_mine instead)";
  return undefined;
}

/**
 * Reads a journal. A last line without its newline is a write a crash cut short (its caller never got an answer):
 * it is dropped. Any other line that does not parse means the file is not ours to replay.
 * Returns the entries and the byte length of the complete lines (where appending continues).
 */
export function readJournal(file: string): { entries: JournalEntry[]; length: number } {
  if (!existsSync(file)) return { entries: [], length: 0 };
  const bytes = readFileSync(file);
  const end = bytes.lastIndexOf(0x0a) + 1;
  const lines = bytes.subarray(0, end).toString("utf8").split("\n");
  lines.pop(); // after the last newline
  const entries = lines.map((line, k) => {
    try {
      const entry = JSON.parse(line) as JournalEntry;
      if (typeof entry.m !== "string" || !Array.isArray(entry.p) || typeof entry.h !== "string")
        throw new Error("not a journal entry");
      return entry;
    } catch (cause) {
      throw new JournalCorruptError(`${file} line ${k + 1} is not a journal entry`, { cause });
    }
  });
  return { entries, length: end };
}

/** Appends entries durably: one write and one fdatasync per entry, so an answered call is on disk. */
export class JournalWriter {
  private fd: number | undefined;
  /** Bytes appended by this writer after the kept ones. */
  private written = 0;
  constructor(
    private readonly file: string,
    /** Keep the first `keep` bytes (the complete lines read); 0 starts an empty journal. */
    private readonly keep: number,
  ) {}

  append(entry: JournalEntry): void {
    if (this.fd === undefined) {
      this.fd = openSync(this.file, existsSync(this.file) ? "r+" : "w");
      // Drops a torn last line, or the old file for a new chain; reopened after close(), keeps what it wrote.
      ftruncateSync(this.fd, this.keep + this.written);
    }
    const line = Buffer.from(`${JSON.stringify(entry)}\n`);
    const position = this.keep + this.written;
    let done = 0;
    while (done < line.length) done += writeSync(this.fd, line, done, line.length - done, position + done);
    this.written += line.length;
    fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

interface Block {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
}

type Request = (args: { method: string; params?: unknown }) => Promise<unknown>;

function requester(provider: EIP1193Provider): Request {
  return (provider as unknown as { request: Request }).request.bind(provider);
}

async function block(request: Request, tag: Hex | "latest"): Promise<Block> {
  return (await request({ method: "eth_getBlockByNumber", params: [tag, false] })) as Block;
}

/** A JSON-RPC error the handler passes to HTTP and WebSocket clients as is. */
class RefusedCallError extends Error {
  readonly code = -32603;
}

/**
 * The chain as everyone else sees it: reads go straight through; state-changing calls run one at a time (so the
 * blocks after a call are that call's) and are journaled before their answer is returned. A call that failed but
 * still mined (a reverted transaction) is journaled too; one that failed without changing the head is not.
 */
export function journaledProvider(raw: EIP1193Provider, journal: JournalWriter): EIP1193Provider {
  const request = requester(raw);
  let tail: Promise<unknown> = Promise.resolve();
  let head: Block | undefined;

  const run = async (method: string, params: unknown[]) => {
    head ??= await block(request, "latest");
    const before = head;
    let result: unknown;
    let failure: unknown;
    let failed = false;
    try {
      result = await request({ method, params });
    } catch (error) {
      failed = true;
      failure = error;
    }
    const after = await block(request, "latest");
    const mined = Number(BigInt(after.number) - BigInt(before.number));
    if (!failed || after.hash !== before.hash) {
      const entry: JournalEntry = { m: method, p: params, h: after.hash };
      if (mined > 0) {
        const first =
          mined === 1 ? after : await block(request, `0x${(BigInt(before.number) + 1n).toString(16)}`);
        entry.t = Number(BigInt(first.timestamp));
        entry.n = mined;
      }
      journal.append(entry);
    }
    head = after;
    if (failed) throw failure;
    return result;
  };

  const journaledRequest: Request = (args) => {
    const params = Array.isArray(args.params) ? (args.params as unknown[]) : [];
    if (!isStateChanging(args.method)) return request(args);
    const refused = refusal(args.method, params);
    if (refused) return Promise.reject(new RefusedCallError(refused));
    const next = tail.then(() => run(args.method, params));
    tail = next.catch(() => {});
    return next;
  };

  return new Proxy(raw, {
    get(target, property) {
      if (property === "request") return journaledRequest;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Replays journal entries on a chain created with the recorded genesis date: each call that mined gets its first
 * block's recorded timestamp. A call that failed the first time (a reverted transaction) fails again the same way.
 * Answers the head hash afterwards.
 */
export async function replayJournal(raw: EIP1193Provider, entries: readonly JournalEntry[]): Promise<Hex> {
  const request = requester(raw);
  for (const entry of entries) {
    if (TIME_ONLY.has(entry.m)) continue;
    if (entry.t !== undefined)
      await request({ method: "evm_setNextBlockTimestamp", params: [`0x${entry.t.toString(16)}`] });
    try {
      await request({ method: entry.m, params: entry.p });
    } catch {
      // Failed the first time as well (journaled only because it mined); the head hash check catches the rest.
    }
  }
  return (await block(request, "latest")).hash;
}

/** Moves the chain clock to now with one empty block (head-age checks), through the journaled provider. */
export async function mineToNow(provider: EIP1193Provider): Promise<void> {
  const request = requester(provider);
  const now = Math.floor(Date.now() / 1000);
  const latest = await block(request, "latest");
  if (now > Number(BigInt(latest.timestamp)))
    await request({ method: "evm_setNextBlockTimestamp", params: [`0x${now.toString(16)}`] });
  await request({ method: "evm_mine", params: [] });
}

/** The genesis block hash: a chain's identity (a new chain has a new genesis date, so a new hash). */
export async function genesisHash(provider: EIP1193Provider): Promise<Hex> {
  return (await block(requester(provider), "0x0")).hash;
}
