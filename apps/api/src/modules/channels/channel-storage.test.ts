import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase, paymentChannels } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseKinds } from "../../test/harness";
import { ChannelRecordError } from "./channel-rows";
import { PostgresChannelStorage } from "./channel-storage";
import { acceptVoucher, openedChannel, testChannelConfig, testChannelId } from "./testing";

const CHAIN = 84532;
const T0 = 1_780_000_000_000;
const clock = { now: () => new Date(T0) };
const storageOn = (handle: DatabaseHandle) =>
  new PostgresChannelStorage({ db: handle.db, chainId: CHAIN, clock });

describe.each(testDatabaseKinds())("PostgresChannelStorage on %s", (kind) => {
  let handle: DatabaseHandle & { url?: string };
  /** A second replica: its own connection pool on PostgreSQL; the same embedded database on PGlite. */
  let replica: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
    replica = handle.url
      ? await openDatabase({ kind: "postgres", url: handle.url, maxConnections: 10 })
      : handle;
  });
  afterAll(async () => {
    if (replica && replica !== handle) await replica.close();
    await handle?.close();
  });

  it("stores uint128-and-wider amounts, the reservation and times exactly", async () => {
    const storage = storageOn(handle);
    const id = testChannelId();
    const big = (2n ** 128n - 1n).toString();
    const wide = `9${"0".repeat(76)}`;
    const channel = {
      ...openedChannel(id, testChannelConfig(), wide, T0),
      chargedCumulativeAmount: big,
      signedMaxClaimable: big,
      signature: "0xabcdef",
      totalClaimed: "340282366920938463463374607431768211454",
      refundNonce: 7,
      withdrawRequestedAt: 1_780_000_123,
      pendingRequest: { pendingId: "p-1", signedMaxClaimable: big, expiresAt: T0 + 5_000 },
    };
    const result = await storage.updateChannel(id.toUpperCase().replace("0X", "0x"), () => channel);
    expect(result.status).toBe("updated");
    expect(await storage.get(id)).toEqual(channel);
    expect(await storageOn(replica).get(id.toUpperCase().replace("0X", "0x"))).toEqual(channel);
    const { onchainSyncedAt: _synced, pendingRequest: _pending, ...bare } = channel;
    await storage.updateChannel(id, () => bare);
    expect(await storage.get(id)).toEqual(bare);
  });

  it("refuses amounts that are not unsigned integers and writes nothing", async () => {
    const storage = storageOn(handle);
    const id = testChannelId();
    for (const balance of ["1.5", "-1", "1e3", "", " 1", "0x10"]) {
      await expect(
        storage.updateChannel(id, () => openedChannel(id, testChannelConfig(), balance, T0)),
      ).rejects.toBeInstanceOf(ChannelRecordError);
    }
    await expect(storage.updateChannel("0x1234", () => undefined)).rejects.toBeInstanceOf(ChannelRecordError);
    await expect(
      storage.updateChannel(id, () => openedChannel(testChannelId(), testChannelConfig(), "1", T0)),
    ).rejects.toBeInstanceOf(ChannelRecordError);
    expect(await storage.get(id)).toBeUndefined();
  });

  it("answers unchanged, deleted and reopened the way the stock storages do", async () => {
    const storage = storageOn(handle);
    const id = testChannelId();
    expect(await storage.updateChannel(id, (current) => current)).toEqual({
      channel: undefined,
      status: "unchanged",
    });
    expect(await storage.updateChannel(id, () => undefined)).toEqual({
      channel: undefined,
      status: "unchanged",
    });
    const opened = openedChannel(id, testChannelConfig(), "1000", T0);
    await storage.updateChannel(id, () => opened);
    const same = await storage.updateChannel(id, (current) => current);
    expect(same).toEqual({ channel: opened, status: "unchanged" });
    expect(await storage.updateChannel(id, () => undefined)).toEqual({
      channel: undefined,
      status: "deleted",
    });
    expect(await storage.get(id)).toBeUndefined();
    expect((await storage.list()).map((c) => c.channelId)).not.toContain(id);
    // The tombstone stays for claims; the next deposit reopens the channel.
    const [row] = await handle.db.select().from(paymentChannels).where(eq(paymentChannels.channelId, id));
    expect(row?.status).toBe("closed");
    await storage.updateChannel(id, (current) => current ?? opened);
    expect(await storage.get(id)).toEqual(opened);
  });

  it("never lowers totalClaimed (the escrow's is monotonic)", async () => {
    const storage = storageOn(handle);
    const id = testChannelId();
    await storage.updateChannel(id, () => ({
      ...openedChannel(id, testChannelConfig(), "1000", T0),
      totalClaimed: "500",
    }));
    const result = await storage.updateChannel(
      id,
      (current) => current && { ...current, totalClaimed: "200" },
    );
    expect(result.channel?.totalClaimed).toBe("500");
    expect((await storage.get(id))?.totalClaimed).toBe("500");
  });

  it("two replicas: 50 concurrent read-modify-write charges lose none", async () => {
    const a = storageOn(handle);
    const b = storageOn(replica);
    const id = testChannelId();
    await a.updateChannel(id, () => openedChannel(id, testChannelConfig(), "1000000", T0));
    const prices = Array.from({ length: 50 }, (_, i) => BigInt(i + 1));
    await Promise.all(
      prices.map((price, i) =>
        (i % 2 === 0 ? a : b).updateChannel(id, (current) =>
          current
            ? {
                ...current,
                chargedCumulativeAmount: (BigInt(current.chargedCumulativeAmount) + price).toString(),
              }
            : current,
        ),
      ),
    );
    const [row] = await handle.db.select().from(paymentChannels).where(eq(paymentChannels.channelId, id));
    expect(row?.chargedCumulative).toBe(prices.reduce((sum, p) => sum + p, 0n).toString());
    expect(row?.version).toBe(51);
  });

  it("two replicas: each of 50 vouchers sent to both at once is accepted exactly once", async () => {
    const replicas = [storageOn(handle), storageOn(replica)];
    const id = testChannelId();
    const price = 1_000n;
    await replicas[0]!.updateChannel(id, () => openedChannel(id, testChannelConfig(), "100000000", T0));
    const vouchers = Array.from({ length: 50 }, (_, i) => ({
      maxClaimableAmount: (price * BigInt(i + 1)).toString(),
      signature: `0x${(i + 1).toString(16).padStart(130, "0")}`,
    }));
    const accepted = new Map<string, number>();
    let remaining = vouchers;
    for (let round = 0; remaining.length > 0 && round < 60; round++) {
      const results = await Promise.all(
        remaining.flatMap((voucher) =>
          replicas.map(async (storage) => ({
            voucher,
            result: await storage.updateChannel(id, acceptVoucher(voucher, price, T0)),
          })),
        ),
      );
      for (const { voucher, result } of results) {
        if (result.status === "updated") {
          accepted.set(voucher.signature, (accepted.get(voucher.signature) ?? 0) + 1);
        }
      }
      remaining = remaining.filter((voucher) => !accepted.has(voucher.signature));
    }
    expect(remaining).toEqual([]);
    expect([...accepted.values()].every((count) => count === 1)).toBe(true);
    expect(accepted.size).toBe(50);
    const stored = await replicas[1]!.get(id);
    expect(stored?.chargedCumulativeAmount).toBe((price * 50n).toString());
    expect(stored?.signature).toBe(vouchers[49]!.signature);
    // A replay of any accepted voucher, on either replica, changes nothing.
    for (const storage of replicas) {
      const replay = await storage.updateChannel(id, acceptVoucher(vouchers[20]!, price, T0));
      expect(replay.status).toBe("unchanged");
    }
  });

  it("a row remembered by one replica and changed by another (or a claim) is never written over", async () => {
    const a = storageOn(handle);
    const b = storageOn(replica);
    const id = testChannelId();
    const voucher = (n: bigint) => ({ maxClaimableAmount: (1_000n * n).toString(), signature: `0x0${n}` });
    await a.updateChannel(id, () => openedChannel(id, testChannelConfig(), "1000000", T0));
    expect(await a.get(id)).toMatchObject({ chargedCumulativeAmount: "0" });
    // B accepts voucher 1 after A read the channel: A's remembered row is now old.
    expect((await b.updateChannel(id, acceptVoucher(voucher(1n), 1_000n, T0))).status).toBe("updated");
    // The same voucher at A: decided on A's old row it would be charged again; the version check refuses that.
    expect((await a.updateChannel(id, acceptVoucher(voucher(1n), 1_000n, T0))).status).toBe("unchanged");
    expect((await a.updateChannel(id, acceptVoucher(voucher(2n), 1_000n, T0))).status).toBe("updated");
    // B accepts voucher 3; voucher 4 at A looks out of step on A's old row, and is accepted on the stored one.
    expect((await b.updateChannel(id, acceptVoucher(voucher(3n), 1_000n, T0))).status).toBe("updated");
    expect(await a.updateChannel(id, acceptVoucher(voucher(4n), 1_000n, T0))).toMatchObject({
      status: "updated",
      channel: { chargedCumulativeAmount: "4000" },
    });
    // A claim confirms 4000 behind A's back (claim-rows.ts raises totalClaimed and the version).
    await replica.db
      .update(paymentChannels)
      .set({ totalClaimed: "4000", version: sql`${paymentChannels.version} + 1` })
      .where(eq(paymentChannels.channelId, id));
    const written = await a.updateChannel(
      id,
      (current) => current && { ...current, lastRequestTimestamp: T0 + 1 },
    );
    expect(written).toMatchObject({ status: "updated", channel: { totalClaimed: "4000" } });
    expect(await b.get(id)).toMatchObject({ chargedCumulativeAmount: "4000", totalClaimed: "4000" });
  });

  it("first inserts racing on one new channel: one wins, the others see its row", async () => {
    const replicas = [storageOn(handle), storageOn(replica)];
    const id = testChannelId();
    const config = testChannelConfig();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        replicas[i % 2]!.updateChannel(id, (current) =>
          current ? current : openedChannel(id, config, String(i + 1), T0),
        ),
      ),
    );
    expect(results.filter((r) => r.status === "updated")).toHaveLength(1);
    const winner = results.find((r) => r.status === "updated")!.channel;
    for (const r of results) expect(r.channel).toEqual(winner);
  });
});

describe.each(testDatabaseKinds())("PostgresChannelStorage across a restart on %s", (kind) => {
  it("loses nothing: charges, the last voucher and a live reservation come back", async () => {
    // A "process" is one database handle: PGlite on a data directory, or a connection pool on the test database.
    let open: () => Promise<DatabaseHandle>;
    let cleanup: () => Promise<void>;
    if (kind === "pglite") {
      const dataDir = mkdtempSync(join(tmpdir(), "tollgate-channels-"));
      open = () => openDatabase({ kind: "pglite", dataDir });
      cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    } else {
      const test = await createTestDatabase(kind);
      open = () => openDatabase({ kind: "postgres", url: test.url!, maxConnections: 2 });
      cleanup = () => test.close();
    }
    const first = await open();
    await first.migrate();
    const id = testChannelId();
    const price = 250n;
    const before = storageOn(first);
    await before.updateChannel(id, () => openedChannel(id, testChannelConfig(), "1000000", T0));
    for (let i = 1; i <= 5; i++) {
      await before.updateChannel(
        id,
        acceptVoucher(
          { maxClaimableAmount: (price * BigInt(i)).toString(), signature: `0x0${i}` },
          price,
          T0,
        ),
      );
    }
    await before.updateChannel(id, (current) =>
      current
        ? {
            ...current,
            pendingRequest: { pendingId: "in-flight", signedMaxClaimable: "1500", expiresAt: T0 + 60_000 },
          }
        : current,
    );
    const expected = await before.get(id);
    await first.close();
    const second = await open();
    try {
      const after = storageOn(second);
      expect(await after.get(id)).toEqual(expected);
      // The replayed fifth voucher is refused after the restart too.
      const replay = await after.updateChannel(
        id,
        acceptVoucher({ maxClaimableAmount: "1250", signature: "0x05" }, price, T0),
      );
      expect(replay.status).toBe("unchanged");
      expect((await after.get(id))?.chargedCumulativeAmount).toBe("1250");
    } finally {
      await second.close();
      await cleanup();
    }
  });
});
