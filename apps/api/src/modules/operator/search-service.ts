/**
 * GET /admin/api/search?q=: one box. The shape of `q` decides where to look, so every lookup is one
 * indexed equality or prefix match: a typed id (`mrch_`, `qt_`, `rcpt_`, `ord_`, `evt_`, `lst_`), a transaction
 * hash, an address (merchant payout or payer), else a merchant name prefix.
 */
import { merchants, quotes, receipts, settlements, webhookEvents } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { EVM_ADDRESS, TX_HASH } from "../../http/list-query";
import { merchantMatch } from "./merchants-view";
import type { AdminReadDeps } from "./read-common";

export type SearchKind =
  | "merchant_id"
  | "quote_id"
  | "receipt_id"
  | "order_id"
  | "event_id"
  | "listing_id"
  | "tx_hash"
  | "address"
  | "name";

export interface SearchHit {
  type: "merchant" | "quote" | "receipt" | "settlement" | "event" | "agent";
  id: string;
  label: string;
  /** The operator API path that shows it. */
  path: string;
}

const LIMIT = 20;

export function searchKind(q: string): SearchKind {
  if (q.startsWith("mrch_")) return "merchant_id";
  if (q.startsWith("qt_")) return "quote_id";
  if (q.startsWith("rcpt_")) return "receipt_id";
  if (q.startsWith("ord_")) return "order_id";
  if (q.startsWith("evt_")) return "event_id";
  if (q.startsWith("lst_")) return "listing_id";
  if (TX_HASH.test(q)) return "tx_hash";
  if (EVM_ADDRESS.test(q)) return "address";
  return "name";
}

const merchantHit = (row: { id: string; name: string }): SearchHit => ({
  type: "merchant",
  id: row.id,
  label: row.name,
  path: `/admin/api/merchants/${row.id}`,
});

const settlementHit = (row: typeof settlements.$inferSelect): SearchHit => ({
  type: "settlement",
  id: row.id.toString(),
  label: `${row.network} ${row.txHash}#${row.logIndex} (${row.state})`,
  path: `/admin/api/transactions?payer=${row.payer}`,
});

export async function search(deps: AdminReadDeps, q: string) {
  const db = deps.db.db;
  const kind = searchKind(q);
  const hits: SearchHit[] = [];
  switch (kind) {
    case "merchant_id":
    case "name": {
      const rows = await db
        .select({ id: merchants.id, name: merchants.name })
        .from(merchants)
        .where(merchantMatch(q))
        .orderBy(sql`lower(${merchants.name})`, merchants.id)
        .limit(LIMIT);
      hits.push(...rows.map(merchantHit));
      break;
    }
    case "quote_id": {
      const rows = await db.select().from(quotes).where(eq(quotes.id, q)).limit(1);
      for (const row of rows) {
        hits.push({
          type: "quote",
          id: row.id,
          label: `${row.network} ${row.asset} ${row.amountAtomic} for ${row.merchantId}`,
          path: `/admin/api/merchants/${row.merchantId}`,
        });
      }
      const paid = await db.select().from(settlements).where(eq(settlements.orderId, q)).limit(LIMIT);
      hits.push(...paid.map(settlementHit));
      break;
    }
    case "receipt_id": {
      const rows = await db.select().from(receipts).where(eq(receipts.id, q)).limit(1);
      for (const row of rows) {
        hits.push({
          type: "receipt",
          id: row.id,
          label: `quote ${row.quoteId}, tx ${row.txHash}`,
          path: `/admin/api/agents/${row.payer}`,
        });
      }
      break;
    }
    case "order_id": {
      const rows = await db.select().from(settlements).where(eq(settlements.orderId, q)).limit(LIMIT);
      hits.push(...rows.map(settlementHit));
      break;
    }
    case "event_id": {
      const rows = await db.select().from(webhookEvents).where(eq(webhookEvents.id, q)).limit(1);
      for (const row of rows) {
        hits.push({
          type: "event",
          id: row.id,
          label: `${row.type} for ${row.merchantId}`,
          path: `/admin/api/merchants/${row.merchantId}`,
        });
      }
      break;
    }
    case "listing_id":
      // Marketplace listings are stored by the marketplace work; until then no listing can match.
      break;
    case "tx_hash": {
      const hash = q.toLowerCase();
      const [paid, issued] = await Promise.all([
        db.select().from(settlements).where(eq(settlements.txHash, hash)).limit(LIMIT),
        db.select().from(receipts).where(eq(receipts.txHash, hash)).limit(LIMIT),
      ]);
      hits.push(...paid.map(settlementHit));
      for (const row of issued) {
        hits.push({
          type: "receipt",
          id: row.id,
          label: `quote ${row.quoteId}`,
          path: `/admin/api/agents/${row.payer}`,
        });
      }
      break;
    }
    case "address": {
      const address = q.toLowerCase();
      const [payouts, [payer]] = await Promise.all([
        db
          .select({ id: merchants.id, name: merchants.name })
          .from(merchants)
          .where(merchantMatch(address))
          .limit(LIMIT),
        db
          .select({ payer: settlements.payer })
          .from(settlements)
          .where(eq(settlements.payer, address))
          .limit(1),
      ]);
      hits.push(...payouts.map(merchantHit));
      if (payer) {
        hits.push({ type: "agent", id: address, label: address, path: `/admin/api/agents/${address}` });
      }
      break;
    }
  }
  return { q, kind, results: hits };
}
