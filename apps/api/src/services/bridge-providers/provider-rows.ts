/**
 * Bridge provider rows (issue 16): the mapping between `bridge_providers` rows and the bridge's `ProviderConfig`,
 * the start-up seed from BRIDGE_PROVIDERS_FILE, and the load the router's catalog runs.
 * Invariants: a row is validated with the same schema as the file (bridge/config.ts `parseProvider`) whenever it
 * is read, so a row the bridge cannot serve is skipped and logged, never half-served; the seed inserts missing ids
 * only and never changes a row already there (docs/decisions.md "Bridge providers in the database").
 */
import { bridgeProviders, type Database } from "@tollgate/db";
import { asc, isNull } from "drizzle-orm";
import { type ProviderConfig, parseProvider } from "../../bridge/config";
import type { Logger } from "../../infra/logger";

export type BridgeProviderRow = typeof bridgeProviders.$inferSelect;

/** The row as the provider document of the file format (snake_case, absent fields left out). */
export function rowDocument(row: BridgeProviderRow): Record<string, string> {
  const doc: Record<string, string> = Object.create(null);
  const put = (key: string, value: string | null) => {
    if (value !== null) doc[key] = value;
  };
  put("id", row.id);
  put("description", row.description);
  put("upstream_url", row.upstreamUrl);
  put("auth_style", row.authStyle);
  put("auth_header", row.authHeader);
  put("api_key", row.apiKey);
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
export function providerColumns(provider: ProviderConfig) {
  return {
    description: provider.description,
    upstreamUrl: provider.upstreamUrl,
    authStyle: provider.auth.style,
    authHeader: provider.auth.header ?? null,
    apiKey: provider.auth.apiKey ?? null,
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
): Promise<string[]> {
  if (providers.length === 0) return [];
  const inserted = await db
    .insert(bridgeProviders)
    .values(
      providers.map((provider) => ({
        id: provider.id,
        ...providerColumns(provider),
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
export async function loadEnabledProviders(db: Database, log: Logger): Promise<ProviderConfig[]> {
  const rows = await db
    .select()
    .from(bridgeProviders)
    .where(isNull(bridgeProviders.disabledAt))
    .orderBy(asc(bridgeProviders.id));
  const providers: ProviderConfig[] = [];
  for (const row of rows) {
    const parsed = parseProvider(rowDocument(row));
    if (parsed.ok) providers.push(parsed.provider);
    else
      log.error({ provider: row.id, issues: parsed.issues }, "stored bridge provider is invalid; not served");
  }
  return providers;
}
