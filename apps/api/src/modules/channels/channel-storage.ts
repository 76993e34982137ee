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
 * - Deleting a channel (the callback returns `undefined`) marks the row `closed` and clears its reservation; a
 *   closed row reads as absent and is reopened by the next write. Claims that name it keep their history.
 */
import { type Database, paymentChannels } from "@tollgate/db";
import type { Channel, ChannelStorage, ChannelUpdateResult } from "@x402/evm/batch-settlement/server";
import { and, asc, eq } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import { ChannelRecordError, channelFromRow, channelKey, channelWrite } from "./channel-rows";

export interface PostgresChannelStorageOptions {
  db: Database;
  /** The EVM chain the channels live on; ids are chain-bound hashes, the column keeps chains apart in queries. */
  chainId: number;
  clock: Clock;
}

/** How often an insert that lost its race reruns before giving up (one rerun always finds the winner's row). */
const INSERT_RACE_RERUNS = 3;

const RERUN = Symbol("rerun");

export class PostgresChannelStorage implements ChannelStorage {
  readonly #db: Database;
  readonly #chainId: number;
  readonly #clock: Clock;

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
    for (let run = 0; run <= INSERT_RACE_RERUNS; run++) {
      const result = await this.#db.transaction(async (tx) => {
        const [row] = await tx.select().from(paymentChannels).where(this.#key(id)).for("update");
        const current = row && row.status === "open" ? channelFromRow(row) : undefined;
        const next = update(current);
        if (next === current) return { channel: current, status: "unchanged" } as const;
        const updatedAt = this.#clock.now();
        if (!next) {
          if (!current || !row) return { channel: undefined, status: "unchanged" } as const;
          await tx
            .update(paymentChannels)
            .set({
              status: "closed",
              pendingId: null,
              pendingSignedMaxClaimable: null,
              pendingExpiresAt: null,
              version: row.version + 1,
              updatedAt,
            })
            .where(this.#key(id));
          return { channel: undefined, status: "deleted" } as const;
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
        if (row) {
          await tx
            .update(paymentChannels)
            .set({ ...values, status: "open", version: row.version + 1, updatedAt })
            .where(this.#key(id));
          return { channel: stored, status: "updated" } as const;
        }
        const inserted = await tx
          .insert(paymentChannels)
          .values({ ...values, chainId: this.#chainId, channelId: id, status: "open", version: 1, updatedAt })
          .onConflictDoNothing()
          .returning({ version: paymentChannels.version });
        return inserted.length === 1 ? ({ channel: stored, status: "updated" } as const) : RERUN;
      });
      if (result !== RERUN) return result;
    }
    throw new ChannelRecordError("channelId", `channel ${id} kept changing under a first insert`);
  }
}
