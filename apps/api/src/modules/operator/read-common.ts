/**
 * Shared pieces of the operator read surface (issue 10, READ part): keyset cursors, filter parsing that turns bad
 * input into `validation_failed`, and the token-address -> asset symbol lookup. Every list is keyset-paginated on an
 * indexed column, so a page costs the same at row 100 and at row 100 000.
 */
import type { Database, settlements } from "@tollgate/db";
import {
  AppError,
  type FieldErrorCode,
  isEvmNetworkName,
  NETWORKS,
  networkByChainId,
} from "@tollgate/shared";
import { z } from "zod";
import type { ChainRegistry } from "../chains/chain-registry";

export interface AdminReadDeps {
  db: { db: Database };
  chains: Pick<ChainRegistry, "byChainId">;
  clock: { now(): Date };
}

/** A 400 naming the offending field. */
export function badField(path: string, message: string, code: FieldErrorCode = "invalid_format"): AppError {
  return new AppError("validation_failed", `${path} ${message}`, { errors: [{ path, code, message }] });
}

/** Cursor = base64url of a JSON array of strings (the last row's sort key); opaque to clients. */
export function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

/** Decodes a cursor of exactly `arity` parts, each checked by `check`; anything else is a 400. */
export function decodeCursor(cursor: string, arity: number, check: (part: string, index: number) => boolean) {
  const fail = () => badField("cursor", "is not valid: use next_cursor from the previous page");
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw fail();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw fail();
  }
  if (!Array.isArray(parsed) || parsed.length !== arity) throw fail();
  const parts = parsed as unknown[];
  if (!parts.every((part, index) => typeof part === "string" && check(part, index))) throw fail();
  return parts as string[];
}

export const DIGITS = /^(0|[1-9][0-9]{0,18})$/;
export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** `?from=` / `?to=`: an ISO 8601 UTC instant (`2026-11-23T10:00:00Z`). */
export const ZInstant = z
  .string()
  .max(30)
  .regex(ISO_INSTANT, "must be an ISO 8601 UTC instant such as 2026-11-23T10:00:00Z")
  .refine((value) => !Number.isNaN(Date.parse(value)), "is not a real date")
  .transform((value) => new Date(value));

/** An EVM address in any case, stored and compared lower-case. */
export const ZEvmAddress = z
  .string()
  .regex(EVM_ADDRESS, "must be 0x + 40 hex digits")
  .transform((value) => value.toLowerCase() as `0x${string}`);

/** A network name we settle on. */
export const ZNetworkFilter = z
  .string()
  .max(16)
  .refine(isEvmNetworkName, "must be one of polygon, base, amoy");

/** A typed id filter: `prefix` + base58, bounded. */
export function typedId(prefix: string) {
  return z
    .string()
    .max(80)
    .regex(new RegExp(`^${prefix}[1-9A-HJ-NP-Za-km-z]{1,64}$`), `must be a ${prefix}... id`);
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** The symbol a settlement's token stands for on its chain (native for the zero address), or null if unknown. */
export function assetResolver(chains: Pick<ChainRegistry, "byChainId">) {
  return (chainId: number, token: string): string | null => {
    const context = chains.byChainId(chainId);
    if (token.toLowerCase() === ZERO_ADDRESS) {
      const network = context?.network ?? networkByChainId(chainId)?.name;
      return network ? NETWORKS[network].nativeSymbol : null;
    }
    const tokens = context?.deployment.tokens;
    if (!tokens) return null;
    for (const [symbol, deployment] of Object.entries(tokens)) {
      if (deployment.address.toLowerCase() === token.toLowerCase()) return symbol;
    }
    return null;
  };
}

/** A settlement as operators see it (money as decimal strings of base units). */
/**
 * The block explorer for a chain, or null when the chain is local (`local: true` in the deployment manifest: it
 * borrows the real chain id, so a real explorer would show someone else's transaction) or unknown.
 */
export function explorerResolver(chains: Pick<ChainRegistry, "byChainId">) {
  return (chainId: number): string | null => {
    const context = chains.byChainId(chainId);
    if (!context || context.deployment.local) return null;
    return NETWORKS[context.network].explorerUrl;
  };
}

/** Settlement rows as the operator surfaces show them: amounts as strings, asset symbol and explorer resolved. */
export function settlementViewer(chains: Pick<ChainRegistry, "byChainId">) {
  const assetOf = assetResolver(chains);
  const explorerOf = explorerResolver(chains);
  return (row: typeof settlements.$inferSelect) =>
    settlementView(row, assetOf(row.chainId, row.token), explorerOf(row.chainId));
}

function settlementView(
  row: typeof settlements.$inferSelect,
  asset: string | null,
  explorerUrl: string | null,
) {
  return {
    id: row.id.toString(),
    network: row.network,
    chain_id: row.chainId,
    tx_hash: row.txHash,
    log_index: row.logIndex,
    block_number: row.blockNumber.toString(),
    explorer_url: explorerUrl,
    payer: row.payer,
    merchant_address: row.merchantAddress,
    merchant_id: row.merchantId,
    token: row.token,
    asset,
    total_amount: row.totalAmount,
    merchant_amount: row.merchantAmount,
    treasury_amount: row.treasuryAmount,
    ip_creator_amount: row.ipCreatorAmount,
    order_id: row.orderId,
    quote_id: row.quoteId,
    bridge_order_id: row.bridgeOrderId,
    state: row.state,
    seen_at: row.seenAt.toISOString(),
    confirmed_at: row.confirmedAt?.toISOString() ?? null,
    final_at: row.finalAt?.toISOString() ?? null,
    orphaned_at: row.orphanedAt?.toISOString() ?? null,
  };
}
