/**
 * Local chains kept across starts (docs/decisions/0058): Hardhat mines identical blocks from identical inputs, so a
 * journal of accepted calls with their block timestamps brings yesterday's chain back; a journal that cannot be
 * replayed gives a new chain (new genesis) and says why; a crash's torn last line is dropped.
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { splitterV12Abi } from "@tollgate/shared/abi/index";
import { orderIdHash } from "@tollgate/shared/contracts";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  type EIP1193Provider,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HARDHAT_ACCOUNTS, HARDHAT_PRIVATE_KEYS, localChain } from "../src/deploy";
import { createInProcessNetwork } from "../src/hardhat";
import { type LocalChains, startLocalChains } from "../src/local-chains";
import { JournalWriter, journaledProvider, readJournal, replayJournal } from "../src/local-chains-journal";
import { CHAIN_RECORD_FILE, chainDir, JOURNAL_FILE } from "../src/local-chains-state";

const payer = privateKeyToAccount(HARDHAT_PRIVATE_KEYS[5]);
const MERCHANT = HARDHAT_ACCOUNTS[12]!;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-persist-"));
  dirs.push(dir);
  return dir;
}

const start = (dataDir: string) =>
  startLocalChains({ dataDir, basePort: 0, persist: true, networks: ["amoy"] });
type Rpc = (args: { method: string; params?: unknown[] }) => Promise<unknown>;
const rpc =
  (provider: EIP1193Provider): Rpc =>
  (args) =>
    (provider as unknown as { request: Rpc }).request(args);
const blockHashes = async (provider: EIP1193Provider): Promise<Hex[]> => {
  const head = Number(BigInt((await rpc(provider)({ method: "eth_blockNumber" })) as Hex));
  const hashes: Hex[] = [];
  for (let n = 0; n <= head; n++)
    hashes.push(
      (
        (await rpc(provider)({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] })) as {
          hash: Hex;
        }
      ).hash,
    );
  return hashes;
};

/** Pays the amoy v1.2 splitter in USDC over HTTP with a locally signed transaction, as an agent does. */
async function pay(chains: LocalChains, orderId: string): Promise<Hex> {
  const c = chains.manifest.chains.amoy!;
  const chain = localChain(c.chainId, c.rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(c.rpcUrl), pollingInterval: 20 });
  const wallet = createWalletClient({ chain, transport: http(c.rpcUrl), account: payer });
  const usdc = c.tokens.USDC!.address as Address;
  const v12 = c.splitters["v1.2"]!.address as Address;
  const approve = await wallet.writeContract({
    address: usdc,
    abi: erc20Abi,
    functionName: "approve",
    args: [v12, maxUint256],
  });
  await publicClient.waitForTransactionReceipt({ hash: approve });
  const hash = await wallet.writeContract({
    address: v12,
    abi: splitterV12Abi,
    functionName: "payStable",
    args: [orderIdHash(orderId), usdc, 1_000_000n, MERCHANT, MERCHANT, orderId],
  });
  expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  return hash;
}

async function usdcBalance(chains: LocalChains, who: Address): Promise<bigint> {
  const c = chains.manifest.chains.amoy!;
  return createPublicClient({ transport: http(c.rpcUrl) }).readContract({
    address: c.tokens.USDC!.address as Address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [who],
  });
}

describe("local chains kept across starts", () => {
  it("identical inputs give identical blocks: a journal replayed on the same genesis date gives every hash again", async () => {
    const dir = tempDir();
    const initialDate = new Date(Math.floor(Date.now() / 1000) * 1000 - 86_400_000);
    const first = await createInProcessNetwork({ chainId: 80002, initialDate });
    const journal = new JournalWriter(path.join(dir, JOURNAL_FILE), 0);
    const journaled = journaledProvider(first, journal);
    const wallet = createWalletClient({
      chain: localChain(80002),
      transport: custom(journaled),
      account: payer,
    });
    for (let k = 0; k < 3; k++)
      await wallet.sendTransaction({ to: MERCHANT, value: 1_000n + BigInt(k), chain: localChain(80002) });
    await rpc(journaled)({ method: "evm_increaseTime", params: [3600] });
    await rpc(journaled)({ method: "hardhat_mine", params: ["0x4", "0x5"] });
    await rpc(journaled)({ method: "hardhat_setBalance", params: [MERCHANT, "0x1234"] });
    const snapshot = await rpc(journaled)({ method: "evm_snapshot", params: [] });
    await rpc(journaled)({ method: "evm_mine", params: [] });
    await rpc(journaled)({ method: "evm_revert", params: [snapshot] });
    await rpc(journaled)({ method: "evm_mine", params: [] });
    journal.close();

    const { entries } = readJournal(path.join(dir, JOURNAL_FILE));
    expect(entries.map((e) => e.m)).toContain("eth_sendRawTransaction");
    expect(entries.find((e) => e.m === "hardhat_mine")).toMatchObject({ n: 4 });
    const second = await createInProcessNetwork({ chainId: 80002, initialDate });
    expect(await replayJournal(second, entries)).toBe(entries.at(-1)!.h);
    expect(await blockHashes(second)).toEqual(await blockHashes(first));

    // Another genesis date: another chain from the first block on.
    const other = await createInProcessNetwork({
      chainId: 80002,
      initialDate: new Date(initialDate.getTime() + 1000),
    });
    expect((await blockHashes(other))[0]).not.toBe((await blockHashes(first))[0]);
  });

  it("a restart keeps blocks, balances, contracts and receipts, moves the clock to now, and journals on", async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    expect(first.chains[0]!.state).toMatchObject({ kept: false, replayed: 0 });
    expect(first.chains[0]!.state!.reason).toBeUndefined();
    const paid = await pay(first, "ord_persist_1");
    const balance = await usdcBalance(first, MERCHANT);
    const genesis = first.chains[0]!.state!.genesisHash;
    await first.stop();

    let balanceAfter = 0n;
    const second = await start(dataDir);
    try {
      const state = second.chains[0]!.state!;
      expect(state).toMatchObject({ kept: true, genesisHash: genesis });
      expect(state.replayed).toBeGreaterThan(20);
      expect(second.manifest.chains.amoy!.splitters).toEqual(first.manifest.chains.amoy!.splitters);
      expect(await usdcBalance(second, MERCHANT)).toBe(balance);
      const client = createPublicClient({ transport: http(second.manifest.chains.amoy!.rpcUrl) });
      expect((await client.getTransactionReceipt({ hash: paid })).status).toBe("success");
      const head = await client.getBlock();
      expect(Number(head.timestamp)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
      await pay(second, "ord_persist_2");
      balanceAfter = await usdcBalance(second, MERCHANT);
      expect(balanceAfter).toBeGreaterThan(balance);
    } finally {
      await second.stop();
    }
    const third = await start(dataDir);
    try {
      expect(third.chains[0]!.state).toMatchObject({ kept: true, genesisHash: genesis });
      expect(await usdcBalance(third, MERCHANT)).toBe(balanceAfter);
    } finally {
      await third.stop();
    }
  });

  it("drops a torn last line; refuses calls it could not replay", async () => {
    const dataDir = tempDir();
    await (await start(dataDir)).stop();
    const journal = path.join(chainDir(dataDir, "amoy"), JOURNAL_FILE);
    appendFileSync(journal, '{"m":"eth_sendRawTransaction","p":["0x02f8');
    const chains = await start(dataDir);
    try {
      expect(chains.chains[0]!.state).toMatchObject({ kept: true });
      const call = rpc(chains.chains[0]!.provider);
      await expect(call({ method: "hardhat_reset", params: [] })).rejects.toThrow(/refused/);
      await expect(call({ method: "evm_setIntervalMining", params: [1000] })).rejects.toThrow(/refused/);
      await call({ method: "evm_mine", params: [] });
    } finally {
      await chains.stop();
    }
    const lines = readFileSync(journal, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).every((line) => JSON.parse(line))).toBeTruthy();
    expect(lines.at(-2)).toContain('"m":"evm_mine"');
    // The in-process chain still answers after stop(); what it journals then is appended, nothing is lost.
    await rpc(chains.chains[0]!.provider)({ method: "evm_mine", params: [] });
    const after = readFileSync(journal, "utf8").split("\n");
    expect(after.slice(0, lines.length - 1)).toEqual(lines.slice(0, -1));
    expect(after).toHaveLength(lines.length + 1);
    await chains.stop(); // closes the reopened journal
  });

  describe("when the recorded state cannot be kept", () => {
    // One recorded chain, copied for each case.
    const template = tempDir();
    let genesis: Hex;
    let genesisSecond: number;
    beforeAll(async () => {
      const chains = await start(template);
      genesis = chains.chains[0]!.state!.genesisHash;
      await chains.stop();
      const record = JSON.parse(
        readFileSync(path.join(chainDir(template, "amoy"), CHAIN_RECORD_FILE), "utf8"),
      );
      genesisSecond = Math.floor(Date.parse(record.initialDate) / 1000);
    });

    it.each([
      [
        "a line in the middle is not JSON",
        /line 3 is not a journal entry/,
        (dir: string) => breakLine(dir, 2),
        true,
      ],
      ["the recorded head differs", /replayed head/, (dir: string) => breakHead(dir), false],
      ["the record is from another version", /changed/, (dir: string) => breakFingerprint(dir), false],
      [
        "the record is missing",
        /no chain record/,
        (dir: string) => rmSync(path.join(dir, CHAIN_RECORD_FILE)),
        false,
      ],
    ])("starts a new chain and says why when %s", async (_, reason, damage, startAgain) => {
      const dataDir = tempDir();
      cpSync(template, dataDir, { recursive: true });
      damage(chainDir(dataDir, "amoy"));
      // Without its record nothing says when the old chain began: a chain started in that same second would share
      // its genesis (a damaged record is stepped past by the start itself).
      while (
        !existsSync(path.join(chainDir(dataDir, "amoy"), CHAIN_RECORD_FILE)) &&
        Date.now() / 1000 < genesisSecond + 1
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await start(dataDir);
      try {
        const state = second.chains[0]!.state!;
        expect(state.kept).toBe(false);
        expect(state.reason).toMatch(reason);
        expect(state.genesisHash).not.toBe(genesis);
      } finally {
        await second.stop();
      }
      if (!startAgain) return;
      // The new chain's files replaced the old ones: the next start keeps it.
      const third = await start(dataDir);
      expect(third.chains[0]!.state).toMatchObject({
        kept: true,
        genesisHash: second.chains[0]!.state!.genesisHash,
      });
      await third.stop();
    });
  });
});

function breakLine(dir: string, index: number): void {
  const file = path.join(dir, JOURNAL_FILE);
  const lines = readFileSync(file, "utf8").split("\n");
  lines[index] = "{not json";
  writeFileSync(file, lines.join("\n"));
}
function breakHead(dir: string): void {
  const file = path.join(dir, JOURNAL_FILE);
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  const last = JSON.parse(lines.at(-1)!) as { h: string };
  last.h = `0x${"ab".repeat(32)}`;
  lines[lines.length - 1] = JSON.stringify(last);
  writeFileSync(file, `${lines.join("\n")}\n`);
}
function breakFingerprint(dir: string): void {
  const file = path.join(dir, CHAIN_RECORD_FILE);
  const record = JSON.parse(readFileSync(file, "utf8")) as { fingerprint: string };
  record.fingerprint = "0".repeat(64);
  writeFileSync(file, JSON.stringify(record));
}
