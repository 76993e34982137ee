/**
 * Local chains kept across restarts in the data directory (docs/decisions/0058): per network
 * `DATA_DIR/chains/<network>/chain.json` (genesis date and hash, what was deployed, a fingerprint of everything the
 * deployment depends on) and `journal.ndjson` (local-chains-journal.ts). `openChain` answers a chain whose state is
 * kept (replayed, head hash checked) or a new one with the reason the old state could not be kept.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { EIP1193Provider, Hex } from "viem";
import { type Deployment, readArtifact } from "./deploy";
import { createInProcessNetwork, type InProcessNetworkOptions } from "./hardhat";
import {
  genesisHash,
  JournalCorruptError,
  JournalWriter,
  journaledProvider,
  mineToNow,
  readJournal,
  replayJournal,
} from "./local-chains-journal";
import { writeJsonAtomic } from "./manifest";

/** Bumped when the files' meaning changes: a record of another format is not replayed. */
export const CHAIN_STATE_FORMAT = 1;
export const CHAIN_RECORD_FILE = "chain.json";
export const JOURNAL_FILE = "journal.ndjson";

export interface ChainRecord {
  format: number;
  network: string;
  chainId: number;
  /** Genesis date (ISO 8601, whole seconds): the chain is created with it on every start. */
  initialDate: string;
  genesisHash: Hex;
  /** Hash of the Hardhat version, chain options, deployment settings and contract bytecode. */
  fingerprint: string;
  deployment: Deployment;
}

/** How the chain came up. */
export interface ChainState {
  /** true: yesterday's blocks, balances and contracts are back; false: a new chain (see `reason`). */
  kept: boolean;
  /** Why the old state could not be kept (absent when kept, or when there was none). */
  reason?: string;
  genesisHash: Hex;
  /** Journal entries replayed and how long it took. */
  replayed: number;
  replayMs: number;
}

export function chainDir(dataDir: string, network: string): string {
  return path.join(dataDir, "chains", network);
}

const require = createRequire(import.meta.url);

/** Everything a replay depends on besides the journal: when it changes, the old state is not replayed. */
export function chainFingerprint(settings: {
  chainId: number;
  network: InProcessNetworkOptions;
  deploy: unknown;
  contracts: readonly string[];
}): string {
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify({
      format: CHAIN_STATE_FORMAT,
      hardhat: (require("hardhat/package.json") as { version: string }).version,
      chainId: settings.chainId,
      network: { ...settings.network, stackTraces: undefined, initialDate: undefined },
      deploy: settings.deploy,
    }),
  );
  for (const name of settings.contracts) hash.update(readArtifact(name).bytecode);
  return hash.digest("hex");
}

function readRecord(file: string): ChainRecord | string {
  if (!existsSync(file)) return "no chain record";
  try {
    return JSON.parse(readFileSync(file, "utf8")) as ChainRecord;
  } catch {
    return `${file} does not parse`;
  }
}

/**
 * The genesis date of a chain started anew: now, in whole seconds, but never the recorded chain's own, so the new chain
 * never shares the genesis hash the dev stack tells chains apart by (docs/decisions/0058), even when the one it
 * replaces was started within the same second.
 */
function newGenesisDate(recordFile: string): Date {
  const now = Math.floor(Date.now() / 1000);
  const previous = readRecord(recordFile);
  const recorded = typeof previous === "string" ? Number.NaN : Date.parse(previous.initialDate);
  const after = Number.isFinite(recorded) ? Math.floor(recorded / 1000) + 1 : 0;
  return new Date(Math.max(now, after) * 1000);
}

export interface OpenedChain {
  /** The journaled provider everyone uses. */
  provider: EIP1193Provider;
  journal: JournalWriter;
  /** Set when kept. */
  record?: ChainRecord;
  state: Omit<ChainState, "genesisHash">;
  /** After the ports are bound: a new chain deploys (the callback), a kept one moves its clock to now. */
  finish(deploy: (provider: EIP1193Provider) => Promise<Deployment>): Promise<{
    deployment: Deployment;
    state: ChainState;
  }>;
}

/**
 * Creates the chain for `network` from the data directory: replays its journal when the record matches the
 * fingerprint and the replayed head equals the recorded one, else a new chain whose files replace the old ones in
 * `finish` (nothing is written before the ports are bound).
 */
export async function openChain(opts: {
  dataDir: string;
  network: string;
  chainId: number;
  options: InProcessNetworkOptions;
  fingerprint: string;
}): Promise<OpenedChain> {
  const dir = chainDir(opts.dataDir, opts.network);
  const recordFile = path.join(dir, CHAIN_RECORD_FILE);
  const journalFile = path.join(dir, JOURNAL_FILE);
  const started = performance.now();
  const kept = await replayRecorded(opts, recordFile, journalFile);
  if (typeof kept !== "string") {
    const journal = new JournalWriter(journalFile, kept.length);
    const provider = journaledProvider(kept.raw, journal);
    const state = { kept: true, replayed: kept.replayed, replayMs: Math.round(performance.now() - started) };
    return {
      provider,
      journal,
      record: kept.record,
      state,
      async finish() {
        await mineToNow(provider);
        return {
          deployment: kept.record.deployment,
          state: { ...state, genesisHash: kept.record.genesisHash },
        };
      },
    };
  }
  const hadState = existsSync(recordFile) || existsSync(journalFile);
  const initialDate = newGenesisDate(recordFile);
  const raw = await createInProcessNetwork({ ...opts.options, initialDate });
  const journal = new JournalWriter(journalFile, 0);
  const provider = journaledProvider(raw, journal);
  const state = { kept: false, ...(hadState ? { reason: kept } : {}), replayed: 0, replayMs: 0 };
  return {
    provider,
    journal,
    state,
    async finish(deploy) {
      rmSync(recordFile, { force: true });
      mkdirSync(dir, { recursive: true });
      const deployment = await deploy(provider);
      const record: ChainRecord = {
        format: CHAIN_STATE_FORMAT,
        network: opts.network,
        chainId: opts.chainId,
        initialDate: initialDate.toISOString(),
        genesisHash: await genesisHash(provider),
        fingerprint: opts.fingerprint,
        deployment,
      };
      writeJsonAtomic(recordFile, record);
      return { deployment, state: { ...state, genesisHash: record.genesisHash } };
    },
  };
}

/** The replayed chain, or why the recorded state cannot be kept. */
async function replayRecorded(
  opts: Parameters<typeof openChain>[0],
  recordFile: string,
  journalFile: string,
): Promise<{ raw: EIP1193Provider; record: ChainRecord; replayed: number; length: number } | string> {
  const record = readRecord(recordFile);
  if (typeof record === "string") return record;
  if (record.format !== CHAIN_STATE_FORMAT)
    return `chain record format ${record.format} is not ${CHAIN_STATE_FORMAT}`;
  if (record.chainId !== opts.chainId || record.network !== opts.network)
    return `chain record is for ${record.network} (${record.chainId})`;
  if (record.fingerprint !== opts.fingerprint)
    return "contracts, Hardhat or chain settings changed since the chain was recorded";
  let journal: ReturnType<typeof readJournal>;
  try {
    journal = readJournal(journalFile);
  } catch (error) {
    if (error instanceof JournalCorruptError) return error.message;
    throw error;
  }
  if (journal.entries.length === 0) return "the journal is empty";
  const raw = await createInProcessNetwork({ ...opts.options, initialDate: new Date(record.initialDate) });
  if ((await genesisHash(raw)) !== record.genesisHash)
    return "the genesis block differs from the recorded one";
  const head = await replayJournal(raw, journal.entries);
  const expected = journal.entries.at(-1)!.h;
  if (head !== expected) return `the replayed head ${head} is not the recorded ${expected}`;
  return { raw, record, replayed: journal.entries.length, length: journal.length };
}
