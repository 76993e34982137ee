/**
 * GET /api/agent/{address}/public-usage (SPEC §4.2): what an agent's wallet paid for, for the account
 * that holds the wallet. Calls paid (receipts and splitter payments), receipts that still hold quota (valid, not
 * expired; the merchant's gate meters the quota down), spend by merchant, network and day (UTC), and the
 * settlements. Orphaned settlements never happened on the canonical chain and are left out. Money: decimal
 * strings of base units. Solana wallets are answered empty while Solana settlement is disabled (DESIGN §3).
 */
import { type Database, merchants, quotes, receipts, settlements, userWallets } from "@tollgate/db";
import { AppError, isSolanaAddress } from "@tollgate/shared";
import { and, count, desc, eq, gt, ne, sql } from "drizzle-orm";
import { EVM_ADDRESS } from "../../http/list-query";
import type { ChainRegistry } from "../chains";
import { assetResolver, settlementViewer } from "../chains";

export interface PublicUsageDeps {
  db: { db: Database };
  chains: Pick<ChainRegistry, "byChainId" | "networks">;
  clock: { now(): Date };
}

/** Rows per list: the newest first; older history is in /v1/agents/{address}/transactions. */
const LIST_LIMIT = 100;

/** The wallet as stored (EVM lower-case), or a 400 naming `address`. */
export function normalizeAgentAddress(address: string): { kind: "evm" | "solana"; address: string } {
  if (EVM_ADDRESS.test(address)) return { kind: "evm", address: address.toLowerCase() };
  if (isSolanaAddress(address)) return { kind: "solana", address };
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

export async function publicUsage(deps: PublicUsageDeps, accountId: string, rawAddress: string) {
  const wallet = normalizeAgentAddress(rawAddress);
  const db = deps.db.db;
  const [held] = await db
    .select({ accountId: userWallets.accountId })
    .from(userWallets)
    .where(and(eq(userWallets.kind, wallet.kind), eq(userWallets.address, wallet.address)));
  if (held?.accountId !== accountId) {
    throw new AppError(
      "wallet_not_linked",
      "link this wallet to your account (POST /api/user/wallets) first",
    );
  }
  const now = deps.clock.now();
  const empty = {
    address: wallet.address,
    family: wallet.kind,
    as_of: now.toISOString(),
    calls_paid: { receipts: 0, payments: 0 },
    receipts: [],
    spend: [],
    settlements: [],
  };
  if (wallet.kind === "solana") return empty;
  const payer = wallet.address;
  const live = and(eq(settlements.payer, payer), ne(settlements.state, "orphaned"));
  const day = sql<string>`to_char(${settlements.seenAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const [[receiptCount], [paymentCount], liveReceipts, spend, recent] = await Promise.all([
    db.select({ n: count() }).from(receipts).where(eq(receipts.payer, payer)),
    db.select({ n: count() }).from(settlements).where(live),
    db
      .select({ receipt: receipts, quote: quotes })
      .from(receipts)
      .innerJoin(quotes, eq(quotes.id, receipts.quoteId))
      .where(and(eq(receipts.payer, payer), eq(receipts.state, "valid"), gt(receipts.expiresAt, now)))
      .orderBy(desc(receipts.issuedAt))
      .limit(LIST_LIMIT),
    db
      .select({
        day,
        network: settlements.network,
        chainId: settlements.chainId,
        merchantAddress: settlements.merchantAddress,
        merchantId: settlements.merchantId,
        merchantName: merchants.name,
        token: settlements.token,
        payments: count(),
        total: sql<string>`coalesce(sum(${settlements.totalAmount}), 0)::text`,
      })
      .from(settlements)
      .leftJoin(merchants, eq(merchants.id, settlements.merchantId))
      .where(live)
      .groupBy(
        day,
        settlements.network,
        settlements.chainId,
        settlements.merchantAddress,
        settlements.merchantId,
        merchants.name,
        settlements.token,
      )
      .orderBy(desc(day), settlements.network, settlements.merchantAddress, settlements.token)
      .limit(LIST_LIMIT * 5),
    db.select().from(settlements).where(live).orderBy(desc(settlements.id)).limit(LIST_LIMIT),
  ]);
  const assetOf = assetResolver(deps.chains);
  const viewSettlement = settlementViewer(deps.chains);
  return {
    ...empty,
    calls_paid: { receipts: receiptCount?.n ?? 0, payments: paymentCount?.n ?? 0 },
    receipts: liveReceipts.map(({ receipt, quote }) => ({
      receipt_id: receipt.id,
      merchant_id: receipt.merchantId,
      resource: quote.resource,
      tier: quote.tier,
      quota: receipt.quota,
      network: quote.network,
      asset: quote.asset,
      amount_atomic: quote.amountAtomic,
      issued_at: receipt.issuedAt.toISOString(),
      expires_at: receipt.expiresAt.toISOString(),
    })),
    spend: spend.map((row) => ({
      day: row.day,
      network: row.network,
      chain_id: row.chainId,
      merchant_address: row.merchantAddress,
      merchant_id: row.merchantId,
      merchant_name: row.merchantName,
      token: row.token,
      asset: assetOf(row.chainId, row.token),
      payments: row.payments,
      total_amount: row.total,
    })),
    settlements: recent.map(viewSettlement),
  };
}
