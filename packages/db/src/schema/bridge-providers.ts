/**
 * Bridge providers: the providers the bridge router sells at `{bridge_url}/<id>/...`, managed by operators
 * (`/admin/api/bridge/providers`). `BRIDGE_PROVIDERS_FILE` seeds this table at start-up: ids missing here are
 * inserted, rows already here are never changed by the file (docs/decisions/0036-bridge-providers-in-the-database.md).
 * Invariants: the id is the URL segment and never changes; prices are decimal strings of atomic units; a disabled
 * provider is kept (its orders and audit trail refer to it) but not served. The pinger's last result lives on the
 * row (`ping_*`), so a restart keeps what was last seen.
 */
import { sql } from "drizzle-orm";
import { check, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const bridgeProviders = pgTable(
  "bridge_providers",
  {
    id: text("id").primaryKey(),
    description: text("description"),
    upstreamUrl: text("upstream_url").notNull(),
    authStyle: text("auth_style").notNull(),
    authHeader: text("auth_header"),
    /**
     * The provider's own upstream key, attached when forwarding; never shown by the operator API. Stored sealed
     * (AES-256-GCM under WEBHOOK_SECRET_KEY, the provider id as additional data; DESIGN §9), never in clear.
     */
    apiKeyCiphertext: text("api_key_ciphertext"),
    priceWei: text("price_wei"),
    priceUsdcUnits: text("price_usdc_units"),
    priceUsdtUnits: text("price_usdt_units"),
    routePath: text("route_path"),
    requireBodyField: text("require_body_field"),
    merchantWallet: text("merchant_wallet").notNull(),
    ipCreator: text("ip_creator"),
    pingUrl: text("ping_url"),
    network: text("network"),
    /** `file` when seeded from BRIDGE_PROVIDERS_FILE, `operator` when created through the operator API. */
    source: text("source").notNull(),
    disabledAt: at("disabled_at"),
    /** The operator (adm_ id) who made the last change; null for seeded rows never changed since. */
    updatedBy: text("updated_by"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    /** Pinger state (SPEC §4.2): last check, its outcome, and how many checks in a row failed. */
    pingCheckedAt: at("ping_checked_at"),
    pingState: text("ping_state"),
    pingReason: text("ping_reason"),
    pingLatencyMs: integer("ping_latency_ms"),
    pingLastLiveAt: at("ping_last_live_at"),
    pingConsecutiveFailures: integer("ping_consecutive_failures").notNull().default(0),
  },
  (table) => [
    check("bridge_providers_id_format", sql`${table.id} ~ '^[a-z0-9][a-z0-9-]{0,62}$'`),
    check("bridge_providers_source", sql`${table.source} in ('file', 'operator')`),
    check(
      "bridge_providers_ping_state",
      sql`${table.pingState} is null or ${table.pingState} in ('live', 'down')`,
    ),
  ],
);
