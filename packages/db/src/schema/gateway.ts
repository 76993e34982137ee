import { pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { merchants } from "./merchants";

/**
 * Hosted gateway (SPEC §4.5): `{gateway_url}/<slug>/...` is forwarded to the merchant's upstream after the
 * receipt checks. The origin secret goes along on every forwarded request so the origin can refuse direct calls.
 */
export const gatewayRoutes = pgTable("gateway_routes", {
  merchantId: text("merchant_id")
    .primaryKey()
    .references(() => merchants.id, { onDelete: "cascade" }),
  slug: text("slug").notNull().unique(),
  upstreamUrl: text("upstream_url").notNull(),
  tier: text("tier").notNull(),
  originSecret: text("origin_secret").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
});
