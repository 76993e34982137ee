import { createHash } from "node:crypto";
import { channelClaims, type DatabaseHandle, paymentChannels } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";
import { PostgresChannelStorage } from "./channel-storage";
import { type ClaimBatch, type ClaimChain, type ClaimTxStatus, createClaimBatcher } from "./claim-batcher";
import { advisoryClaimLock } from "./claim-lock";
import { createChannels } from "./index";
import { acceptVoucher, openedChannel, testChannelConfig, testChannelId } from "./testing";

const T0 = 1_780_000_000_000;
const clock = { now: () => new Date(T0) };

/**
 * The escrow's claim rule, in memory (the contract lands separately): a row credits the channel only when its
 * cumulative `totalClaimed` is above the channel's, and then by the difference (`_processVoucherClaim`).
 */
function fakeEscrow() {
  const totalClaimed = new Map<string, bigint>();
  const credits: { channelId: string; delta: bigint; cumulative: bigint }[] = [];
  const sends: ClaimBatch[] = [];
  const txs = new Map<string, { batch: ClaimBatch; status: ClaimTxStatus }>();
  const control = {
    autoMine: true,
    /** Throws before the node accepts the send: nothing reaches the chain. */
    failBeforeSend: false,
    /** Throws after the transaction was mined: the process dies before recording the hash. */
    failAfterMined: false,
    /** Blocks every send until resolved (to overlap two workers). */
    gate: undefined as Promise<void> | undefined,
    onSend: () => {},
  };
  const mine = (hash: string) => {
    const tx = txs.get(hash)!;
    for (const entry of tx.batch.entries) {
      const before = totalClaimed.get(entry.channelId) ?? 0n;
      const cumulative = BigInt(entry.totalClaimed);
      if (cumulative <= before) continue;
      totalClaimed.set(entry.channelId, cumulative);
      credits.push({ channelId: entry.channelId, delta: cumulative - before, cumulative });
    }
    tx.status = "confirmed";
  };
  const chain: ClaimChain = {
    async submitClaims(batch) {
      control.onSend();
      if (control.gate) await control.gate;
      if (control.failBeforeSend) throw new Error("relayer unreachable");
      sends.push(batch);
      const hash = `0x${createHash("sha256").update(`${batch.id}:${batch.attempt}`).digest("hex")}`;
      txs.set(hash, { batch, status: "pending" });
      if (control.autoMine) mine(hash);
      if (control.failAfterMined) throw new Error("process died after the send");
      return { txHash: hash };
    },
    async claimStatus(hash) {
      return txs.get(hash)?.status ?? "dropped";
    },
  };
  return { chain, control, sends, credits, txs, totalClaimed, mine };
}

describe.each(testDatabaseKinds())("claim batcher on %s", (kind) => {
  let handle: DatabaseHandle;
  let chainId = 9_000;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await handle?.close();
  });
  // Each test on its own chain id: the batcher only sees its chain's channels and claims.
  beforeEach(() => {
    chainId++;
  });

  const batcherFor = (chain: ClaimChain, options: { maxPerBatch?: number; maxAttempts?: number } = {}) =>
    createClaimBatcher({
      db: handle.db,
      lock: advisoryClaimLock(handle, chainId),
      chain,
      clock,
      chainId,
      ...options,
    });

  /** Opens `count` channels and charges each `charges` vouchers of `price`; returns their ids. */
  async function chargedChannels(count: number, charges: number, price = 100n) {
    const storage = new PostgresChannelStorage({ db: handle.db, chainId, clock });
    const ids = Array.from({ length: count }, () => testChannelId().toLowerCase());
    for (const id of ids) {
      await storage.updateChannel(id, () => openedChannel(id, testChannelConfig(), "1000000", T0));
      await charge(storage, id, charges, price);
    }
    return { storage, ids };
  }
  async function charge(storage: PostgresChannelStorage, id: string, charges: number, price = 100n) {
    for (let i = 0; i < charges; i++) {
      const current = await storage.get(id);
      const next = (BigInt(current!.chargedCumulativeAmount) + price).toString();
      await storage.updateChannel(
        id,
        acceptVoucher({ maxClaimableAmount: next, signature: `0x${next}` }, price, T0),
      );
    }
  }
  const claimsOf = () => handle.db.select().from(channelClaims).where(eq(channelClaims.chainId, chainId));
  const channelsOf = () =>
    handle.db.select().from(paymentChannels).where(eq(paymentChannels.chainId, chainId));
  const creditedPerChannel = (escrow: ReturnType<typeof fakeEscrow>) => {
    const sums = new Map<string, bigint>();
    for (const credit of escrow.credits)
      sums.set(credit.channelId, (sums.get(credit.channelId) ?? 0n) + credit.delta);
    return sums;
  };

  it("claims what is owed in one batch, records it, and claims only new charges next time", async () => {
    const escrow = fakeEscrow();
    const { storage, ids } = await chargedChannels(3, 4);
    // Built the way the API will build it: the module's factory.
    const batcher = createChannels({ database: handle, chainId, clock, chain: escrow.chain }).batcher!;
    const first = await batcher.run();
    expect(first.ran).toBe(true);
    expect(first.claims).toEqual([expect.objectContaining({ state: "confirmed", entries: 3 })]);
    expect(escrow.sends).toHaveLength(1);
    expect(escrow.sends[0]!.entries.map((e) => e.totalClaimed)).toEqual(["400", "400", "400"]);
    expect(escrow.sends[0]!.entries[0]!.signature).toBe("0x400");
    for (const row of await channelsOf()) {
      expect(row.totalClaimed).toBe("400");
      expect(row.claimId).toBeNull();
    }
    expect(await batcher.run()).toEqual({ ran: true, claims: [] });
    await charge(storage, ids[1]!, 2);
    await batcher.run();
    expect(escrow.sends).toHaveLength(2);
    expect(escrow.sends[1]!.entries).toEqual([
      expect.objectContaining({ channelId: ids[1], totalClaimed: "600" }),
    ]);
    expect(creditedPerChannel(escrow).get(ids[1]!)).toBe(600n);
    const [claim] = await claimsOf();
    expect(claim).toMatchObject({ state: "confirmed", attempts: 1 });
    expect(claim!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("splits the owed channels into batches of maxPerBatch", async () => {
    const escrow = fakeEscrow();
    await chargedChannels(5, 1);
    const report = await batcherFor(escrow.chain, { maxPerBatch: 2 }).run();
    expect(report.claims.map((c) => c.entries)).toEqual([2, 2, 1]);
    expect(new Set(escrow.sends.flatMap((s) => s.entries.map((e) => e.channelId))).size).toBe(5);
  });

  it("two batchers racing: one claims, the other finds the lock taken", async () => {
    const escrow = fakeEscrow();
    await chargedChannels(2, 3);
    let open = () => {};
    let sending = () => {};
    const sent = new Promise<void>((resolve) => (sending = resolve));
    escrow.control.gate = new Promise<void>((resolve) => (open = resolve));
    escrow.control.onSend = () => sending();
    const a = batcherFor(escrow.chain).run();
    await sent;
    const b = await batcherFor(escrow.chain).run();
    expect(b).toEqual({ ran: false, claims: [] });
    open();
    expect((await a).claims).toEqual([expect.objectContaining({ state: "confirmed" })]);
    expect(escrow.sends).toHaveLength(1);
    // Once the first is done, the lock is free again.
    expect((await batcherFor(escrow.chain).run()).ran).toBe(true);
  });

  it("the lock is per chain: a pass on another chain runs while this chain's is held", async () => {
    const escrow = fakeEscrow();
    await chargedChannels(1, 1);
    let open = () => {};
    let sending = () => {};
    const sent = new Promise<void>((resolve) => (sending = resolve));
    escrow.control.gate = new Promise<void>((resolve) => (open = resolve));
    escrow.control.onSend = () => sending();
    const a = batcherFor(escrow.chain).run();
    await sent;
    const other = fakeEscrow();
    const elsewhere = createClaimBatcher({
      db: handle.db,
      lock: advisoryClaimLock(handle, chainId + 1),
      chain: other.chain,
      clock,
      chainId: chainId + 1,
    });
    // Nothing is charged on the other chain, but its pass takes its own lock and runs.
    expect(await elsewhere.run()).toEqual({ ran: true, claims: [] });
    expect((await batcherFor(escrow.chain).run()).ran).toBe(false);
    open();
    expect((await a).claims).toEqual([expect.objectContaining({ state: "confirmed" })]);
  });

  it("a crash after the claim row is written and before it reaches the chain: resumed, sent once", async () => {
    const escrow = fakeEscrow();
    const { ids } = await chargedChannels(2, 2);
    escrow.control.failBeforeSend = true;
    const crashed = await batcherFor(escrow.chain).run();
    expect(crashed.claims).toEqual([expect.objectContaining({ state: "pending" })]);
    const [written] = await claimsOf();
    expect(written).toMatchObject({
      state: "pending",
      attempts: 1,
      lastError: "relayer unreachable",
      txHash: null,
    });
    expect((await channelsOf()).every((row) => row.claimId === written!.id)).toBe(true);
    escrow.control.failBeforeSend = false;
    const resumed = await batcherFor(escrow.chain).run();
    expect(resumed.claims).toEqual([{ id: written!.id, state: "confirmed", entries: 2 }]);
    expect(escrow.sends).toHaveLength(1);
    expect(escrow.credits).toHaveLength(2);
    for (const id of ids) expect(creditedPerChannel(escrow).get(id)).toBe(200n);
  });

  it("a crash after the send was mined and before its hash was recorded: the resend credits nothing twice", async () => {
    const escrow = fakeEscrow();
    const { ids } = await chargedChannels(2, 3);
    escrow.control.failAfterMined = true;
    await batcherFor(escrow.chain).run();
    expect((await claimsOf())[0]).toMatchObject({ state: "pending", txHash: null });
    escrow.control.failAfterMined = false;
    const resumed = await batcherFor(escrow.chain).run();
    expect(resumed.claims).toEqual([expect.objectContaining({ state: "confirmed" })]);
    // Sent twice with the same cumulative amounts; the escrow credited each channel once.
    expect(escrow.sends).toHaveLength(2);
    expect(escrow.sends[1]!.entries).toEqual(escrow.sends[0]!.entries);
    expect(escrow.credits).toHaveLength(2);
    for (const id of ids) expect(creditedPerChannel(escrow).get(id)).toBe(300n);
    for (const row of await channelsOf()) expect(row.totalClaimed).toBe("300");
  });

  it("a crash between submitted and confirmed: resumed without resending; confirmed once mined", async () => {
    const escrow = fakeEscrow();
    const { storage, ids } = await chargedChannels(1, 2);
    escrow.control.autoMine = false;
    expect((await batcherFor(escrow.chain).run()).claims).toEqual([
      expect.objectContaining({ state: "submitted" }),
    ]);
    // Charged again while the claim is in flight: not in this claim, not lost either.
    await charge(storage, ids[0]!, 1);
    expect((await batcherFor(escrow.chain).run()).claims).toEqual([
      expect.objectContaining({ state: "submitted" }),
    ]);
    expect(escrow.sends).toHaveLength(1);
    escrow.mine([...escrow.txs.keys()][0]!);
    escrow.control.autoMine = true;
    const after = await batcherFor(escrow.chain).run();
    expect(after.claims.map((c) => c.state)).toEqual(["confirmed", "confirmed"]);
    expect(escrow.sends.map((s) => s.entries[0]!.totalClaimed)).toEqual(["200", "300"]);
    expect(creditedPerChannel(escrow).get(ids[0]!)).toBe(300n);
  });

  it("a dropped transaction is resent; a reverted one fails and frees its channels", async () => {
    const escrow = fakeEscrow();
    const { storage, ids } = await chargedChannels(1, 1);
    escrow.control.autoMine = false;
    await batcherFor(escrow.chain).run();
    escrow.txs.clear(); // the node forgot it
    escrow.control.autoMine = true;
    expect((await batcherFor(escrow.chain).run()).claims).toEqual([
      expect.objectContaining({ state: "confirmed" }),
    ]);
    expect(escrow.sends.map((s) => s.attempt)).toEqual([1, 2]);
    expect(escrow.credits).toHaveLength(1);

    await charge(storage, ids[0]!, 1);
    escrow.control.autoMine = false;
    await batcherFor(escrow.chain).run();
    const reverted = [...escrow.txs.values()].at(-1)!;
    reverted.status = "reverted";
    expect((await batcherFor(escrow.chain).run()).claims).toEqual([
      expect.objectContaining({ state: "failed" }),
    ]);
    const [row] = await channelsOf();
    expect(row).toMatchObject({ claimId: null, totalClaimed: "100", chargedCumulative: "200" });
    // The same amounts are not resent; the next charge makes a new batch.
    expect(await batcherFor(escrow.chain).run()).toEqual({ ran: true, claims: [] });
    await charge(storage, ids[0]!, 1);
    escrow.control.autoMine = true;
    expect((await batcherFor(escrow.chain).run()).claims).toEqual([
      expect.objectContaining({ state: "confirmed" }),
    ]);
    expect(creditedPerChannel(escrow).get(ids[0]!)).toBe(300n);
  });

  it("gives up after maxAttempts sends that throw, and frees the channels", async () => {
    const escrow = fakeEscrow();
    await chargedChannels(1, 1);
    escrow.control.failBeforeSend = true;
    const batcher = batcherFor(escrow.chain, { maxAttempts: 3 });
    const states = [];
    for (let i = 0; i < 3; i++) states.push((await batcher.run()).claims[0]?.state);
    expect(states).toEqual(["pending", "pending", "failed"]);
    expect((await claimsOf())[0]).toMatchObject({ state: "failed", attempts: 3 });
    expect((await channelsOf())[0]?.claimId).toBeNull();
  });
});
