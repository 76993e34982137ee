/**
 * Bridge provider rows: the mapping between `bridge_providers` rows and the bridge's `ProviderConfig`,
 * the start-up seed from BRIDGE_PROVIDERS_FILE, and the load the router's catalog runs.
 * Invariants: a row is validated with the same schema as the file (bridge/config.ts `parseProvider`) whenever it
 * is read, so a row the bridge cannot serve is skipped and logged, never half-served; the seed inserts missing ids
 * only and never changes a row already there (docs/decisions/0036-bridge-providers-in-the-database.md); the upstream
 * key is stored sealed with the webhook-secret envelope (AES-256-GCM, `bridge_provider:<id>` as additional data, so
 * a ciphertext copied to another row or read as a webhook secret does not open).
 */
import { bridgeProviders, type Database } from "@tollgate/db";
import { decryptWebhookSecret, encryptWebhookSecret } from "@tollgate/webhooks";
import { asc, isNull } from "drizzle-orm";
import type { Logger } from "../../infra/logger";
import { type ProviderConfig, parseProvider } from "./config";

export type BridgeProviderRow = typeof bridgeProviders.$inferSelect;

const sealingContext = (id: string) => `bridge_provider:${id}`;

/** The stored form of a provider's upstream key. */
export function sealApiKey(key: Buffer, id: string, apiKey: string): string {
  return encryptWebhookSecret(key, sealingContext(id), apiKey);
}

/** The upstream key of a stored row; throws AppError(internal_error) for another row's ciphertext or another key. */
export function openApiKey(key: Buffer, id: string, ciphertext: string): string {
  return decryptWebhookSecret(key, sealingContext(id), ciphertext);
}

/** The row as the provider document of the file format (snake_case, absent fields left out). */
export function rowDocument(row: BridgeProviderRow, key: Buffer): Record<string, string> {
  const doc: Record<string, string> = Object.create(null);
  const put = (key: string, value: string | null) => {
    if (value !== null) doc[key] = value;
  };
  put("id", row.id);
  put("description", row.description);
  put("upstream_url", row.upstreamUrl);
  put("auth_style", row.authStyle);
  put("auth_header", row.authHeader);
  put("api_key", row.apiKeyCiphertext === null ? null : openApiKey(key, row.id, row.apiKeyCiphertext));
  put("price_wei", row.priceWei);
  put("price_usdc_units", row.priceUsdcUnits);
  put("price_usdt_units", row.priceUsdtUnits);
  put("route_path", row.routePath);
  put("require_body_field", row.requireBodyField);
  put("merchant_wallet", row.merchantWallet);
  put("ip_creator", row.ipCreator);
  put("ping_url", row.pingUrl);
  put("network", row.network);
  return { ...doc };
}

/** The columns a provider configuration fills (everything but bookkeeping and pinger state). */
export function providerColumns(provider: ProviderConfig, key: Buffer) {
  return {
    description: provider.description,
    upstreamUrl: provider.upstreamUrl,
    authStyle: provider.auth.style,
    authHeader: provider.auth.header ?? null,
    apiKeyCiphertext:
      provider.auth.apiKey === undefined ? null : sealApiKey(key, provider.id, provider.auth.apiKey),
    priceWei: provider.prices.wei?.toString() ?? null,
    priceUsdcUnits: provider.prices.usdcUnits?.toString() ?? null,
    priceUsdtUnits: provider.prices.usdtUnits?.toString() ?? null,
    routePath: provider.routePath ?? null,
    requireBodyField: provider.requireBodyField ?? null,
    merchantWallet: provider.merchantWallet,
    ipCreator: provider.ipCreator ?? null,
    pingUrl: provider.pingUrl ?? null,
    network: provider.network ?? null,
  };
}

/** Inserts the file's providers whose id is not stored yet; returns the ids inserted. */
export async function seedBridgeProviders(
  db: Database,
  providers: readonly ProviderConfig[],
  at: Date,
  key: Buffer,
): Promise<string[]> {
  if (providers.length === 0) return [];
  const inserted = await db
    .insert(bridgeProviders)
    .values(
      providers.map((provider) => ({
        id: provider.id,
        ...providerColumns(provider, key),
        source: "file",
        createdAt: at,
        updatedAt: at,
      })),
    )
    .onConflictDoNothing({ target: bridgeProviders.id })
    .returning({ id: bridgeProviders.id });
  return inserted.map((row) => row.id);
}

/** The enabled providers, by id; a row that no longer validates is skipped and logged. */
export async function loadEnabledProviders(
  db: Database,
  log: Logger,
  key: Buffer,
): Promise<ProviderConfig[]> {
  const rows = await db
    .select()
    .from(bridgeProviders)
    .where(isNull(bridgeProviders.disabledAt))
    .orderBy(asc(bridgeProviders.id));
  const providers: ProviderConfig[] = [];
  for (const row of rows) {
    let document: Record<string, string>;
    try {
      document = rowDocument(row, key);
    } catch (error) {
      log.error({ provider: row.id, err: error }, "stored bridge provider key does not open; not served");
      continue;
    }
    const parsed = parseProvider(document);
    if (parsed.ok) providers.push(parsed.provider);
    else
      log.error({ provider: row.id, issues: parsed.issues }, "stored bridge provider is invalid; not served");
  }
  return providers;
}
