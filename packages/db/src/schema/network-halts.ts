/**
 * Network halts: the indexer halts a network when a reorg is deeper than `maxReorgDepth` (nothing is
 * guessed or written). The halt is a row here, so it survives restarts: a follower refuses a network with an open
 * halt, `/readyz` and the operator overview show it, and only an operator clears it
 * (`POST /api/admin/networks/{network}/resume`, audited). After a resume the indexer re-anchors the network's
 * cursor at the deepest block the node still agrees with and records it here (`reanchored_*`,
 * docs/decisions/0059-network-halts-resume-and-operations.md). Rows are kept after the resume as the halt history;
 * at most one open halt per chain.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

export const networkHalts = pgTable(
  "network_halts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    chainId: integer("chain_id").notNull(),
    network: text("network").notNull(),
    /** Why, e.g. the ReorgTooDeepError message. */
    reason: text("reason").notNull(),
    /** The cursor block when it halted. */
    blockNumber: bigint("block_number", { mode: "bigint" }),
    haltedAt: timestamp("halted_at", { withTimezone: true, mode: "date" }).notNull(),
    resumedAt: timestamp("resumed_at", { withTimezone: true, mode: "date" }),
    /** The admin id that resumed it. */
    resumedBy: text("resumed_by"),
    resumeReason: text("resume_reason"),
    /** When the indexer acted on the resume: null while a resumed halt still waits for its follower. */
    reanchoredAt: timestamp("reanchored_at", { withTimezone: true, mode: "date" }),
    /** The block the cursor was re-anchored at (the common ancestor found after the resume). */
    reanchoredBlock: bigint("reanchored_block", { mode: "bigint" }),
    /** Settlements above that block marked orphaned by the re-anchoring (each re-indexed if still on the chain). */
    reanchorOrphaned: integer("reanchor_orphaned"),
  },
  (table) => [
    uniqueIndex("network_halts_open_unique").on(table.chainId).where(sql`${table.resumedAt} is null`),
    index("network_halts_network_idx").on(table.network, table.haltedAt),
  ],
);
