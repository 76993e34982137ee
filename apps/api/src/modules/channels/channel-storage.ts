/**
 * The stock `ChannelStorage` of x402 `batch-settlement` on the database (docs/decisions/0082; docs/sessions.md
 * "Channel storage"). Every API replica on the same database shares it, and it survives restarts.
 *
 * Invariants:
 * - `updateChannel` reads and writes one channel inside one transaction that holds the row's lock
 *   (`select … for update`), so no two callers, in any process, interleave between reading `current` and writing
 *   the callback's result. A channel not yet stored is inserted with `on conflict do nothing`; losing that race
 *   reruns the whole update against the row the winner wrote. The callback may therefore run more than once; the
 *   stock callbacks only assign their outcome, so that is harmless.
 * - `totalClaimed` never goes down: the contract's `totalClaimed` is monotonic (`_processVoucherClaim`), so a
 *   write carrying a lower value (an older snapshot) keeps the stored one.
 * - Fast path (docs/decisions/0092): `updateChannel` first runs the callback on the row this process last read or
 *   wrote (kept per channel, bounded) and writes with one compare-and-set statement on the row's `version`
 *   (`update … where version = v returning *`; a first insert is `insert … on conflict do nothing returning *`).
 *   Every write raises `version` (claims too), so the statement matches only when nobody wrote since that read: the
 *   same guarantee as the row lock, in one round trip. A miss (another replica or a claim wrote), and an
 *   `unchanged` outcome decided on a remembered row, fall back to the locked transaction on a fresh read.
 * - Deleting a channel (the callback returns `undefined`) marks the row `closed` and clears its reservation; a
 *   closed row reads as absent and is reopened by the next write. Claims that name it keep their history.
 */
import { type Database, paymentChannels } from "@tollgate/db";
import type { Channel, ChannelStorage, ChannelUpdateResult } from "@x402/evm/batch-settlement/server";
import { and, asc, eq } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { Clock } from "../../infra/clock";
import {
  ChannelRecordError,
  type ChannelRow,
  channelFromRow,
  channelKey,
  channelWrite,
} from "./channel-rows";

export interface PostgresChannelStorageOptions {
  db: Database;
  /** The EVM chain the channels live on; ids are chain-bound hashes, the column keeps chains apart in queries. */
  chainId: number;
  clock: Clock;
}

/** How often an insert that lost its race reruns before giving up (one rerun always finds the winner's row). */
const INSERT_RACE_RERUNS = 3;

const RERUN = Symbol("rerun");

/** Rows remembered for the compare-and-set fast path (one per recently used channel; a miss costs one read). */
const REMEMBERED_ROWS = 10_000;

type UpdateOutcome = ChannelUpdateResult | typeof RERUN;
/** The columns one write sets: a `Channel`'s, the status, the version and the time. */
type ChannelSet = ReturnType<typeof channelWrite> & Pick<ChannelRow, "status" | "version" | "updatedAt">;
/** The columns closing a channel sets (a tombstone: the channel's fields stay as they were). */
type CloseSet = Pick<
  ChannelRow,
  "status" | "pendingId" | "pendingSignedMaxClaimable" | "pendingExpiresAt" | "version" | "updatedAt"
>;

export class PostgresChannelStorage implements ChannelStorage {
  readonly #db: Database;
  readonly #chainId: number;
  readonly #clock: Clock;
  /** The row as this process last read or wrote it; only a guess at the stored row, checked by `version`. */
  readonly #rows = new LRUCache<string, ChannelRow>({ max: REMEMBERED_ROWS });

  constructor(options: PostgresChannelStorageOptions) {
    this.#db = options.db;
    this.#chainId = options.chainId;
    this.#clock = options.clock;
  }

  #key(channelId: string) {
    return and(
      eq(paymentChannels.chainId, this.#chainId),
      eq(paymentChannels.channelId, channelKey(channelId)),
    );
  }

  async get(channelId: string): Promise<Channel | undefined> {
    const [row] = await this.#db.select().from(paymentChannels).where(this.#key(channelId));
    if (row) this.#rows.set(row.channelId, row);
    else this.#rows.delete(channelKey(channelId));
    return row && row.status === "open" ? channelFromRow(row) : undefined;
  }

  async list(): Promise<Channel[]> {
    const rows = await this.#db
      .select()
      .from(paymentChannels)
      .where(and(eq(paymentChannels.chainId, this.#chainId), eq(paymentChannels.status, "open")))
      .orderBy(asc(paymentChannels.channelId));
    return rows.map(channelFromRow);
  }

  async updateChannel(
    channelId: string,
    update: (current: Channel | undefined) => Channel | undefined,
  ): Promise<ChannelUpdateResult> {
    const id = channelKey(channelId);
    const remembered = this.#rows.get(id);
    if (remembered) {
      const fast = await this.#compareAndSet(id, remembered, update);
      if (fast !== RERUN) return fast;
    }
    this.#rows.delete(id);
    for (let run = 0; run <= INSERT_RACE_RERUNS; run++) {
      const result = await this.#db.transaction(async (tx): Promise<UpdateOutcome> => {
        const [row] = await tx.select().from(paymentChannels).where(this.#key(id)).for("update");
        const plan = this.#plan(id, row, update);
        if (plan.kind === "unchanged") return plan.result;
        if (row) {
          const [written] = await tx.update(paymentChannels).set(plan.set).where(this.#key(id)).returning();
          if (written) this.#rows.set(id, written);
          return plan.result;
        }
        // No row: only an open channel is written (closing needs a current channel, hence a row).
        if (plan.kind !== "open") return plan.result;
        const [inserted] = await tx
          .insert(paymentChannels)
          .values({ ...plan.set, chainId: this.#chainId, channelId: id })
          .onConflictDoNothing()
          .returning();
        if (!inserted) return RERUN;
        this.#rows.set(id, inserted);
        return plan.result;
      });
      if (result !== RERUN) return result;
    }
    throw new ChannelRecordError("channelId", `channel ${id} kept changing under a first insert`);
  }

  /**
   * One statement: the callback's outcome on `row` (as remembered), written only if the stored row is still at
   * `row.version`. RERUN when it is not, or when the outcome is `unchanged` (decided on a possibly old row).
   */
  async #compareAndSet(
    id: string,
    row: ChannelRow,
    update: (current: Channel | undefined) => Channel | undefined,
  ): Promise<UpdateOutcome> {
    const plan = this.#plan(id, row, update);
    if (plan.kind === "unchanged") return RERUN;
    const [written] = await this.#db
      .update(paymentChannels)
      .set(plan.set)
      .where(and(this.#key(id), eq(paymentChannels.version, row.version)))
      .returning();
    if (!written) return RERUN;
    this.#rows.set(id, written);
    return plan.result;
  }

  /** What the callback's outcome on `row` writes (the key and chain aside), and what `updateChannel` answers. */
  #plan(
    id: string,
    row: ChannelRow | undefined,
    update: (current: Channel | undefined) => Channel | undefined,
  ):
    | { kind: "unchanged"; result: ChannelUpdateResult }
    | { kind: "close"; set: CloseSet; result: ChannelUpdateResult }
    | { kind: "open"; set: ChannelSet; result: ChannelUpdateResult } {
    const current = row && row.status === "open" ? channelFromRow(row) : undefined;
    const next = update(current);
    if (next === current) return { kind: "unchanged", result: { channel: current, status: "unchanged" } };
    const updatedAt = this.#clock.now();
    const version = (row?.version ?? 0) + 1;
    if (!next) {
      if (!current) return { kind: "unchanged", result: { channel: undefined, status: "unchanged" } };
      return {
        kind: "close",
        set: {
          status: "closed",
          pendingId: null,
          pendingSignedMaxClaimable: null,
          pendingExpiresAt: null,
          version,
          updatedAt,
        },
        result: { channel: undefined, status: "deleted" },
      };
    }
    if (channelKey(next.channelId) !== id) {
      throw new ChannelRecordError("channelId", `an update of ${id} returned channel ${next.channelId}`);
    }
    const values = channelWrite(next);
    let stored: Channel = next;
    if (row && BigInt(row.totalClaimed) > BigInt(values.totalClaimed)) {
      values.totalClaimed = row.totalClaimed;
      stored = { ...next, totalClaimed: row.totalClaimed };
    }
    return {
      kind: "open",
      set: { ...values, status: "open", version, updatedAt },
      result: { channel: stored, status: "updated" },
    };
  }
}
