/**
 * An agent's splitter settlements as the indexer wrote them (SPEC §4.2): newest first,
 * cursor-paginated. EVM addresses match in any case; Solana addresses are answered empty while Solana
 * settlement is disabled (DESIGN §3). Orphaned settlements never happened on the canonical chain and
 * are left out.
 */
import { type Database, settlementLocation, settlements } from "@tollgate/db";
import { AppError, isSolanaAddress } from "@tollgate/shared";
import { and, desc, eq, lt, ne } from "drizzle-orm";

export interface AgentTransactionServiceDeps {
  db: { db: Database };
}

export interface AgentTransactionsQuery {
  address: string;
  /** `next_cursor` of the previous page. */
  cursor?: string | undefined;
  limit: number;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Cursor = base64url of the last row's id; opaque to clients. */
const encodeCursor = (id: bigint) => Buffer.from(id.toString()).toString("base64url");

function decodeCursor(cursor: string): bigint {
  const text = Buffer.from(cursor, "base64url").toString();
  if (!/^\d{1,19}$/.test(text)) {
    throw new AppError("validation_failed", "cursor is not valid", {
      errors: [{ path: "cursor", code: "invalid_format", message: "use next_cursor from the previous page" }],
    });
  }
  return BigInt(text);
}

function toTransactionView(row: typeof settlements.$inferSelect) {
  return {
    ...settlementLocation(row),
    merchant: row.merchantAddress,
    merchant_id: row.merchantId,
    token: row.token,
    total_amount: row.totalAmount,
    merchant_amount: row.merchantAmount,
    order_id: row.orderId,
    quote_id: row.quoteId,
    // Orphaned rows are filtered out by the query.
    state: row.state as "seen" | "confirmed" | "final",
    seen_at: row.seenAt.toISOString(),
  };
}

/** One page of the agent's settlements (ZListAgentTransactionsResponse). */
export async function listAgentTransactions(
  deps: AgentTransactionServiceDeps,
  query: AgentTransactionsQuery,
) {
  if (!EVM_ADDRESS.test(query.address)) {
    if (isSolanaAddress(query.address)) {
      return { address: query.address, family: "solana" as const, transactions: [], next_cursor: null };
    }
    throw new AppError("validation_failed", "address is neither an EVM nor a Solana address", {
      errors: [
        {
          path: "address",
          code: "invalid_format",
          message: "expected 0x + 40 hex digits or a base58 Solana key",
        },
      ],
    });
  }
  const payer = query.address.toLowerCase();
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await deps.db.db
    .select()
    .from(settlements)
    .where(
      and(
        eq(settlements.payer, payer),
        ne(settlements.state, "orphaned"),
        ...(before === undefined ? [] : [lt(settlements.id, before)]),
      ),
    )
    .orderBy(desc(settlements.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    address: payer,
    family: "evm" as const,
    transactions: page.map(toTransactionView),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last.id) : null,
  };
}
