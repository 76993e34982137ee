import { settlements } from "@tollgate/db";
import { AppError } from "@tollgate/shared";
import { and, desc, eq, lt, ne } from "drizzle-orm";
import { publicProcedure } from "../../trpc/trpc";
import {
  type TListAgentTransactionsResponse,
  ZListAgentTransactionsRequest,
  ZListAgentTransactionsResponse,
} from "./list-agent-transactions.types";

const EVM = /^0x[0-9a-fA-F]{40}$/;

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Canonical base58 of exactly 32 bytes (a Solana public key), without a base58 dependency. */
function isSolanaAddress(value: string): boolean {
  if (value.length < 32 || value.length > 44) return false;
  let n = 0n;
  for (const ch of value) {
    const digit = BASE58.indexOf(ch);
    if (digit < 0) return false;
    n = n * 58n + BigInt(digit);
  }
  const leadingZeros = value.length - value.replace(/^1+/, "").length;
  const bodyBytes = n === 0n ? 0 : Math.ceil(n.toString(16).length / 2);
  if (leadingZeros + bodyBytes !== 32) return false;
  // canonical: re-encoding gives the same text (no superfluous leading "1"s)
  let text = "";
  for (let m = n; m > 0n; m /= 58n) text = BASE58[Number(m % 58n)] + text;
  return "1".repeat(leadingZeros) + text === value;
}

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

/**
 * GET /v1/agents/{address}/transactions (SPEC §4.2): the agent's splitter settlements as indexed
 * (issue 5), newest first, cursor-paginated. EVM addresses match in any case; Solana addresses are
 * accepted and answered empty while Solana settlement is disabled (DESIGN §3). Orphaned settlements
 * are left out: they never happened on the canonical chain.
 */
export const listAgentTransactionsProcedure = publicProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/v1/agents/{address}/transactions",
      tags: ["payments"],
      summary: "An agent's settlements, newest first",
      errorResponses: [400],
    },
  })
  .input(ZListAgentTransactionsRequest)
  .output(ZListAgentTransactionsResponse)
  .query(async ({ ctx, input }): Promise<TListAgentTransactionsResponse> => {
    if (!EVM.test(input.address)) {
      if (isSolanaAddress(input.address)) {
        return { address: input.address, family: "solana", transactions: [], next_cursor: null };
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
    const payer = input.address.toLowerCase();
    const before = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    const rows = await ctx.deps.db.db
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
      .limit(input.limit + 1);
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    return {
      address: payer,
      family: "evm",
      transactions: page.map((r) => ({
        chain_id: r.chainId,
        network: r.network,
        tx_hash: r.txHash,
        log_index: r.logIndex,
        block_number: r.blockNumber.toString(),
        merchant: r.merchantAddress,
        merchant_id: r.merchantId,
        token: r.token,
        total_amount: r.totalAmount,
        merchant_amount: r.merchantAmount,
        order_id: r.orderId,
        quote_id: r.quoteId,
        state: r.state as "seen" | "confirmed" | "final",
        seen_at: r.seenAt.toISOString(),
      })),
      next_cursor: rows.length > input.limit && last ? encodeCursor(last.id) : null,
    };
  });
