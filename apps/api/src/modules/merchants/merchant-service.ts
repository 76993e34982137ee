/**
 * Merchant registry (SPEC §2.1, §2.2, §4.1). Dependencies come in as arguments; nothing here knows HTTP.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { type Database, merchants, merchantTiers, settlements, type Transaction } from "@tollgate/db";
import {
  AppError,
  DEFAULT_TIERS_MICRO_USD,
  type FieldError,
  formatTiers,
  hasPayoutFamily,
  isLoopbackHttpUrl,
  type MerchantPrivateView,
  type MerchantPublicView,
  mergePayTo,
  type NetworkList,
  type NetworkMode,
  newId,
  nullProtoRecord,
  type PayTo,
  type RegisterMerchantInput,
  type UpdateMerchantInput,
} from "@tollgate/shared";
import { and, eq, isNull } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import { type AuditRequest, recordAudit, selfAuditEntry } from "../audit";
import { reviseMerchantListings } from "../marketplace/revision-service";
import type { MerchantCache } from "./merchant-cache";

export interface MerchantServiceDeps {
  db: { db: Database };
  clock: Clock;
  /** http webhook URLs on loopback are accepted (WEBHOOK_ALLOW_LOOPBACK; default only outside production). */
  env: { webhookAllowLoopback: boolean };
  /** Every write here invalidates the quote path's cached merchant once committed. */
  merchantCache: Pick<MerchantCache, "invalidate">;
  /** The runtime network list a settlement chain must be in (decision 0057). */
  chains: { networks: NetworkList };
}

export type MerchantRecord = typeof merchants.$inferSelect & { tiers: Record<string, bigint> };

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

function invalid(errors: FieldError[], detail = "request breaks a merchant rule"): AppError {
  return new AppError("validation_failed", detail, { errors });
}

/** A settlement chain must be a network of this service, of the merchant's mode (SPEC §2.1; decision 0057). */
function settlementChainError(
  networks: NetworkList,
  chain: string,
  mode: NetworkMode,
): FieldError | undefined {
  if (!networks.has(chain)) {
    return {
      path: "settlement_chain",
      code: "invalid_value",
      message: `${chain} is not a network of this service (${networks.names().join(", ")})`,
    };
  }
  if (!networks.isChainInMode(chain, mode)) {
    return {
      path: "settlement_chain",
      code: "settlement_chain_mode_mismatch",
      message: `${chain} is not a ${mode} network`,
    };
  }
  return undefined;
}

/**
 * http webhook URLs are for loopback receivers in development only (DESIGN.md §9), or where the operator says the
 * merchants run beside Tollgate (WEBHOOK_ALLOW_LOOPBACK, which the indexer reads too for its connect-time check).
 */
function checkWebhookPolicy(url: string | null | undefined, allowLoopback: boolean): void {
  if (url && isLoopbackHttpUrl(url) && !allowLoopback) {
    throw invalid([
      {
        path: "webhook_url",
        code: "webhook_url_not_https",
        message: "http is allowed only in development mode",
      },
    ]);
  }
}

async function loadTiers(db: Database | Transaction, merchantId: string): Promise<Record<string, bigint>> {
  const rows = await db.select().from(merchantTiers).where(eq(merchantTiers.merchantId, merchantId));
  // Null-prototype: a tier name is user input, never a key that reaches Object.prototype.
  return nullProtoRecord(rows.map((row) => [row.tier, row.unitPriceMicroUsd] as const));
}

export function toPublicView(merchant: MerchantRecord): MerchantPublicView {
  return {
    merchant_id: merchant.id,
    name: merchant.name,
    pay_to: merchant.payTo,
    settlement_version: merchant.settlementVersion,
    network_mode: merchant.networkMode,
    settlement_chain: merchant.settlementChain,
    tiers: formatTiers(merchant.tiers),
  };
}

export function toPrivateView(merchant: MerchantRecord): MerchantPrivateView {
  return {
    ...toPublicView(merchant),
    webhook_url: merchant.webhookUrl,
    created_at: merchant.createdAt.toISOString(),
    updated_at: merchant.updatedAt.toISOString(),
    secret_rotated_at: merchant.secretRotatedAt.toISOString(),
    suspension: suspensionView(merchant),
  };
}

/** The suspension as the merchant and operators see it (decision 0071); null while selling. */
export function suspensionView(merchant: Pick<MerchantRecord, "suspendedAt" | "suspensionReason">) {
  return merchant.suspendedAt
    ? { suspended_at: merchant.suspendedAt.toISOString(), reason: merchant.suspensionReason ?? "" }
    : null;
}

/**
 * THE check of every new sale (decision 0071): a suspended merchant issues no quote and no payment challenge.
 * Called where a quote is priced (quotes-pay) and where the gateway would answer 402; payments already made are
 * not checked here, so receipts, settlements and webhooks keep working.
 */
export function assertMerchantSelling(merchant: Pick<MerchantRecord, "id" | "suspendedAt">): void {
  if (merchant.suspendedAt) {
    throw new AppError("merchant_suspended", `merchant ${merchant.id} is suspended by the operator`);
  }
}

function newSecret(): string {
  return newId("merchantSecret");
}

/**
 * Links settlements the indexer recorded before any merchant had their payout address (`merchant_id` null) to
 * `merchantId`. Called in the transaction that sets the merchant's EVM payout: registration now, and
 * every future write of `pay_to.evm` (the owner step-up payout change must call it too). Rows already linked to
 * a merchant stay theirs: history is never reassigned. Returns how many rows it linked.
 */
export async function linkUnattributedSettlements(
  tx: Transaction,
  merchantId: string,
  payTo: PayTo,
): Promise<number> {
  if (!payTo.evm) return 0;
  // The indexer stores merchant addresses lower-cased (decode.ts).
  const linked = await tx
    .update(settlements)
    .set({ merchantId })
    .where(and(isNull(settlements.merchantId), eq(settlements.merchantAddress, payTo.evm.toLowerCase())))
    .returning({ id: settlements.id });
  return linked.length;
}

/** Registers a merchant; the secret is returned here once and stored only as a hash. */
export async function registerMerchant(
  deps: MerchantServiceDeps,
  input: RegisterMerchantInput,
): Promise<{ merchant: MerchantRecord; secret: string }> {
  checkWebhookPolicy(input.webhook_url, deps.env.webhookAllowLoopback);
  const now = deps.clock.now();
  const mode = input.network_mode ?? "live";
  const chainError =
    input.settlement_chain === undefined
      ? undefined
      : settlementChainError(deps.chains.networks, input.settlement_chain, mode);
  if (chainError) throw invalid([chainError]);
  const secret = newSecret();
  const tiers = input.tiers ?? DEFAULT_TIERS_MICRO_USD;
  const row = {
    id: newId("merchant"),
    name: input.name,
    secretHash: hashSecret(secret),
    payTo: input.pay_to,
    settlementVersion: input.settlement_version ?? "1.2",
    networkMode: mode,
    settlementChain: input.settlement_chain ?? deps.chains.networks.defaultFor(mode),
    webhookUrl: input.webhook_url ?? null,
    suspendedAt: null,
    suspensionReason: null,
    createdAt: now,
    updatedAt: now,
    secretRotatedAt: now,
  } satisfies typeof merchants.$inferInsert;
  await deps.db.db.transaction(async (tx) => {
    await tx.insert(merchants).values(row);
    await tx.insert(merchantTiers).values(
      Object.entries(tiers).map(([tier, price]) => ({
        merchantId: row.id,
        tier,
        unitPriceMicroUsd: price,
      })),
    );
    await linkUnattributedSettlements(tx, row.id, row.payTo);
  });
  return { merchant: { ...row, tiers: nullProtoRecord(Object.entries(tiers)) }, secret };
}

export async function findMerchant(
  deps: Pick<MerchantServiceDeps, "db">,
  id: string,
): Promise<MerchantRecord | undefined> {
  const [row] = await deps.db.db.select().from(merchants).where(eq(merchants.id, id));
  return row ? { ...row, tiers: await loadTiers(deps.db.db, row.id) } : undefined;
}

/** `findMerchant` through the per-process cache (the quote path; merchant-cache.ts for the bounds). */
export function findMerchantCached(
  deps: Pick<MerchantServiceDeps, "db"> & { merchantCache: MerchantCache },
  id: string,
): Promise<MerchantRecord | undefined> {
  return deps.merchantCache.get(id, () => findMerchant(deps, id));
}

export async function getMerchant(
  deps: Pick<MerchantServiceDeps, "db">,
  id: string,
): Promise<MerchantRecord> {
  const merchant = await findMerchant(deps, id);
  if (!merchant) throw new AppError("merchant_not_found", `no merchant ${id}`);
  return merchant;
}

/** Finds the merchant a secret belongs to; the secret itself is never stored or compared in plain text. */
export async function authenticateMerchantSecret(
  deps: Pick<MerchantServiceDeps, "db">,
  secret: string,
): Promise<MerchantRecord> {
  const hash = hashSecret(secret);
  const [row] = await deps.db.db.select().from(merchants).where(eq(merchants.secretHash, hash));
  // The lookup is by hash; compare again in constant time so no path depends on string equality timing.
  if (!row || !timingSafeEqual(Buffer.from(row.secretHash, "hex"), Buffer.from(hash, "hex"))) {
    throw new AppError("invalid_merchant_secret", "the merchant secret is not valid");
  }
  return { ...row, tiers: await loadTiers(deps.db.db, row.id) };
}

/** The authenticated merchant may act only on itself. */
export function assertSameMerchant(merchant: MerchantRecord, id: string): void {
  if (merchant.id !== id) throw new AppError("forbidden", "this secret belongs to another merchant");
}

/**
 * PATCH semantics (SPEC §2.1, §2.2): omitted fields keep their value; `null` clears one family or tier;
 * `network_mode` never changes; payout changes need the owner step-up route, not this one.
 */
export async function updateMerchant(
  deps: MerchantServiceDeps,
  merchantId: string,
  input: UpdateMerchantInput,
  request: AuditRequest = {},
): Promise<MerchantRecord> {
  checkWebhookPolicy(input.webhook_url, deps.env.webhookAllowLoopback);
  const updated = await deps.db.db.transaction(async (tx) => {
    const [current] = await tx.select().from(merchants).where(eq(merchants.id, merchantId)).for("update");
    if (!current) throw new AppError("merchant_not_found", `no merchant ${merchantId}`);
    const tiers = await loadTiers(tx, merchantId);

    const errors: FieldError[] = [];
    if (input.network_mode !== undefined && input.network_mode !== current.networkMode) {
      errors.push({
        path: "network_mode",
        code: "network_mode_immutable",
        message: `network_mode is ${current.networkMode} and cannot change`,
      });
    }
    const chainError =
      input.settlement_chain === undefined
        ? undefined
        : settlementChainError(deps.chains.networks, input.settlement_chain, current.networkMode);
    if (chainError) errors.push(chainError);
    const nextPayTo: PayTo = input.pay_to ? mergePayTo(current.payTo, input.pay_to) : current.payTo;
    if (!hasPayoutFamily(nextPayTo)) {
      errors.push({
        path: "pay_to",
        code: "pay_to_empty",
        message: "at least one payout family must remain",
      });
    }
    const nextTiers = nullProtoRecord(Object.entries(tiers));
    for (const [tier, price] of Object.entries(input.tiers ?? {})) {
      if (price === null) delete nextTiers[tier];
      else nextTiers[tier] = price;
    }
    if (Object.keys(nextTiers).length === 0) {
      errors.push({ path: "tiers", code: "too_short", message: "at least one tier must remain" });
    }
    if (errors.length > 0) throw invalid(errors);

    if (JSON.stringify(sortKeys(nextPayTo)) !== JSON.stringify(sortKeys(current.payTo))) {
      throw new AppError(
        "payout_change_requires_step_up",
        "pay_to changes need the owner step-up on the console route; nothing was changed",
      );
    }

    const now = deps.clock.now();
    const [updated] = await tx
      .update(merchants)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.settlement_version !== undefined ? { settlementVersion: input.settlement_version } : {}),
        ...(input.settlement_chain !== undefined ? { settlementChain: input.settlement_chain } : {}),
        ...(input.webhook_url !== undefined ? { webhookUrl: input.webhook_url } : {}),
        updatedAt: now,
      })
      .where(eq(merchants.id, merchantId))
      .returning();
    // The name is published with every listing: a rename waits for review as new revisions (SPEC §3.1;
    // docs/decisions/0067-listing-revisions.md).
    if (input.name !== undefined && input.name !== current.name) {
      await reviseMerchantListings(tx, merchantId, "merchant_renamed", request, now);
    }
    if (input.tiers) {
      await tx.delete(merchantTiers).where(eq(merchantTiers.merchantId, merchantId));
      await tx
        .insert(merchantTiers)
        .values(
          Object.entries(nextTiers).map(([tier, price]) => ({ merchantId, tier, unitPriceMicroUsd: price })),
        );
    }
    return { ...updated!, tiers: nextTiers };
  });
  deps.merchantCache.invalidate(merchantId);
  return updated;
}

function sortKeys(payTo: PayTo): [string, string | undefined][] {
  return Object.entries(payTo).sort(([a], [b]) => a.localeCompare(b));
}

/** Issues a new secret; the old one stops working in the same statement (SPEC §2.1). */
export async function rotateMerchantSecret(
  deps: MerchantServiceDeps,
  merchantId: string,
  currentSecretHash: string,
  request: AuditRequest = {},
): Promise<{ merchant: MerchantRecord; secret: string }> {
  const secret = newSecret();
  const now = deps.clock.now();
  const row = await deps.db.db.transaction(async (tx) => {
    // Compare-and-swap on the old hash: two concurrent rotations cannot both succeed with the same old secret.
    const [updated] = await tx
      .update(merchants)
      .set({ secretHash: hashSecret(secret), secretRotatedAt: now, updatedAt: now })
      .where(and(eq(merchants.id, merchantId), eq(merchants.secretHash, currentSecretHash)))
      .returning();
    if (!updated) throw new AppError("invalid_merchant_secret", "the merchant secret was rotated already");
    // Audited in the same transaction; never the secret or its hash.
    await recordAudit(
      tx,
      selfAuditEntry({ type: "merchant", id: merchantId }, "merchant.secret.rotated", request),
      now,
    );
    return updated;
  });
  deps.merchantCache.invalidate(merchantId);
  return { merchant: { ...row, tiers: await loadTiers(deps.db.db, row.id) }, secret };
}
