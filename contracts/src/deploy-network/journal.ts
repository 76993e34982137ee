/**
 * The deployment journal (decision 0054): a JSON file beside the manifest recording, per step, the signed
 * transaction BEFORE it is broadcast and its receipt once mined. A rerun after a crash finds every step in one of
 * three states: mined (reused as is), sent but not mined (waited for, or the same signed bytes broadcast again), or
 * absent (done now). Broadcasting the same signed transaction twice is harmless, so no step can run twice.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  type Address,
  type Chain,
  getAddress,
  type Hex,
  keccak256,
  type LocalAccount,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type WalletClient,
} from "viem";
import { writeJsonAtomic } from "../manifest";
import { DeployError } from "./cli-args";

export interface StepRecord {
  hash: Hex;
  nonce: number;
  /** The signed transaction, broadcast again when a crash left it unsent. */
  raw: Hex;
  /** Constructor arguments of a deployment (JSON, bigints as strings): a rerun with others is refused. */
  args?: unknown[];
  mined?: { block: number; gasUsed: string; address?: Address };
}

export interface JournalFile {
  version: 1;
  network: string;
  chainId: number;
  deployer: Address;
  roles: { admin: Address; quoteSigner: Address; pauser: Address; treasury: Address };
  steps: Record<string, StepRecord>;
}

export interface Journal {
  file: string;
  data: JournalFile;
}

/** `<manifest dir>/<manifest name>.<network>.journal.json`, e.g. deployments.amoy.journal.json. */
export function journalPath(manifestPath: string, network: string): string {
  const parsed = path.parse(path.resolve(manifestPath));
  return path.join(parsed.dir, `${parsed.name}.${network}.journal.json`);
}

/** Opens the journal, or starts one; refuses one written for another chain, deployer or set of roles. */
export function openJournal(file: string, fresh: Omit<JournalFile, "version" | "steps">): Journal {
  if (!existsSync(file)) return { file, data: { version: 1, ...fresh, steps: {} } };
  const data = JSON.parse(readFileSync(file, "utf8")) as JournalFile;
  const mismatch = (
    [
      ["chain id", data.chainId, fresh.chainId],
      ["deployer", data.deployer, fresh.deployer],
      ["admin", data.roles.admin, fresh.roles.admin],
      ["quote signer", data.roles.quoteSigner, fresh.roles.quoteSigner],
      ["pauser", data.roles.pauser, fresh.roles.pauser],
      ["treasury", data.roles.treasury, fresh.roles.treasury],
    ] as const
  ).find(([, was, now]) => String(was).toLowerCase() !== String(now).toLowerCase());
  if (mismatch) {
    const [what, was, now] = mismatch;
    throw new DeployError(
      `journal ${file} belongs to a deployment with ${what} ${was}, not ${now}: finish that one or move the journal away`,
    );
  }
  return { file, data };
}

export function saveJournal(journal: Journal): void {
  writeJsonAtomic(journal.file, journal.data);
}

/** JSON form of constructor arguments (bigints as decimal strings) for comparison across runs. */
export function jsonArgs(args: readonly unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(args, (_k, v) => (typeof v === "bigint" ? v.toString() : v))) as unknown[];
}

export interface Net {
  chain: Chain;
  account: LocalAccount;
  publicClient: PublicClient;
  walletClient: WalletClient;
  journal: Journal;
  log: (line: string) => void;
  /** Transactions mined by this run, and their gas. */
  sent: { count: number; gasUsed: bigint };
}

export interface MinedStep {
  hash: Hex;
  block: number;
  gasUsed: bigint;
  address?: Address;
  /** True when this run found the step already mined (journal) instead of sending it. */
  reused: boolean;
}

async function receiptOf(net: Net, hash: Hex) {
  try {
    return await net.publicClient.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw error;
  }
}

async function isKnown(net: Net, hash: Hex): Promise<boolean> {
  try {
    await net.publicClient.getTransaction({ hash });
    return true;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    throw error;
  }
}

/** Waits for a journaled transaction; broadcasts its signed bytes again when the node has never seen it. */
async function settle(net: Net, key: string, record: StepRecord): Promise<MinedStep> {
  let receipt = await receiptOf(net, record.hash);
  if (!receipt) {
    if (!(await isKnown(net, record.hash))) {
      const used = await net.publicClient.getTransactionCount({
        address: net.account.address,
        blockTag: "latest",
      });
      if (used > record.nonce) {
        throw new DeployError(
          `step ${key}: transaction ${record.hash} was never mined and nonce ${record.nonce} was used by another transaction; check the deployer's history, then remove the step from ${net.journal.file}`,
        );
      }
      await net.publicClient.sendRawTransaction({ serializedTransaction: record.raw });
    }
    receipt = await net.publicClient.waitForTransactionReceipt({ hash: record.hash });
  }
  if (receipt.status !== "success") {
    delete net.journal.data.steps[key];
    saveJournal(net.journal);
    throw new DeployError(`step ${key}: transaction ${record.hash} reverted (block ${receipt.blockNumber})`);
  }
  const address = receipt.contractAddress ? getAddress(receipt.contractAddress) : undefined;
  record.mined = {
    block: Number(receipt.blockNumber),
    gasUsed: receipt.gasUsed.toString(),
    ...(address ? { address } : {}),
  };
  saveJournal(net.journal);
  return {
    hash: record.hash,
    block: record.mined.block,
    gasUsed: receipt.gasUsed,
    ...(address ? { address } : {}),
    reused: false,
  };
}

/** A step already journaled: reused when mined, otherwise waited for (and counted as sent by this run). */
export async function resumeStep(net: Net, key: string): Promise<MinedStep | undefined> {
  const record = net.journal.data.steps[key];
  if (!record) return undefined;
  if (record.mined) {
    const { block, gasUsed, address } = record.mined;
    return {
      hash: record.hash,
      block,
      gasUsed: BigInt(gasUsed),
      ...(address ? { address } : {}),
      reused: true,
    };
  }
  net.log(`… ${key}: waiting for ${record.hash} sent by an earlier run`);
  const mined = await settle(net, key, record);
  net.sent.count++;
  net.sent.gasUsed += mined.gasUsed;
  return mined;
}

/** Signs `tx` locally, journals it, broadcasts it and waits for it (a revert throws). */
export async function sendStep(
  net: Net,
  key: string,
  tx: { to?: Address; data: Hex },
  args?: readonly unknown[],
): Promise<MinedStep> {
  const request = await net.walletClient.prepareTransactionRequest({
    account: net.account,
    chain: net.chain,
    ...(tx.to ? { to: tx.to } : {}),
    data: tx.data,
  });
  const raw = await net.account.signTransaction(request as Parameters<LocalAccount["signTransaction"]>[0]);
  const record: StepRecord = {
    hash: keccak256(raw),
    nonce: request.nonce,
    raw,
    ...(args ? { args: jsonArgs(args) } : {}),
  };
  net.journal.data.steps[key] = record;
  saveJournal(net.journal);
  await net.publicClient.sendRawTransaction({ serializedTransaction: raw });
  const mined = await settle(net, key, record);
  net.sent.count++;
  net.sent.gasUsed += mined.gasUsed;
  return mined;
}
