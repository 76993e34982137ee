/**
 * Hosted-gateway configuration (SPEC §4.5; docs/gateway.md): one route per merchant, `{gateway_url}/<slug>/...` ->
 * upstream, and its origin secret. Used by the configuration routes (get-gateway-route.ts, set-gateway-route.ts,
 * rotate-origin-secret.ts) and read by the `/g` proxy (gateway-router.ts).
 */
import { randomBytes } from "node:crypto";
import { type Database, gatewayRoutes, type Transaction } from "@tollgate/db";
import { AppError, isLoopbackHttpUrl, ownValue } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { Clock } from "../../infra/clock";
import { type AuditRequest, recordAudit } from "../audit";
import { reviseMerchantListings } from "../marketplace/revision-service";
import type { MerchantRecord } from "../merchants";

export type GatewayRoute = typeof gatewayRoutes.$inferSelect;

/** Sent on every forwarded request, so the merchant's origin can refuse calls that did not come through `/g`. */
export const ORIGIN_SECRET_HEADER = "X-Tollgate-Origin-Secret";

export interface GatewayServiceDeps {
  db: { db: Database };
  clock: Clock;
  env: { developmentMode: boolean };
}

function newOriginSecret(): string {
  return `tgo_${randomBytes(32).toString("base64url")}`;
}

/**
 * Creates or replaces the merchant's gateway route. The origin secret is generated on creation and kept on
 * updates; it is returned only by this call when created, and by `rotateOriginSecret`.
 */
export async function setGatewayRoute(
  deps: GatewayServiceDeps,
  merchant: MerchantRecord,
  input: { slug: string; upstream_url: string; tier?: string | undefined },
  request: AuditRequest = {},
): Promise<{ route: GatewayRoute; created: boolean }> {
  if (isLoopbackHttpUrl(input.upstream_url) && !deps.env.developmentMode) {
    throw new AppError("validation_failed", "http upstreams are allowed only in development mode", {
      errors: [{ path: "upstream_url", code: "url_not_https", message: "must use https" }],
    });
  }
  const tier = input.tier ?? "standard";
  if (ownValue(merchant.tiers, tier) === undefined) {
    throw new AppError("validation_failed", `tier ${tier} is not one of the merchant's tiers`, {
      errors: [
        { path: "tier", code: "invalid_value", message: `tiers: ${Object.keys(merchant.tiers).join(", ")}` },
      ],
    });
  }
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const [taken] = await tx.select().from(gatewayRoutes).where(eq(gatewayRoutes.slug, input.slug));
    if (taken && taken.merchantId !== merchant.id) {
      throw new AppError("conflict", `the slug ${input.slug} is taken`, {
        errors: [{ path: "slug", code: "invalid_value", message: "already in use" }],
      });
    }
    const [existing] = await tx.select().from(gatewayRoutes).where(eq(gatewayRoutes.merchantId, merchant.id));
    if (existing) {
      const [route] = await tx
        .update(gatewayRoutes)
        .set({ slug: input.slug, upstreamUrl: input.upstream_url, tier, updatedAt: now })
        .where(eq(gatewayRoutes.merchantId, merchant.id))
        .returning();
      await auditRoute(tx, "gateway.route.changed", merchant.id, request, now, existing, route!);
      // The route is exported with the merchant's listings: a change waits for review as new revisions
      // (docs/decisions/0067-listing-revisions.md).
      await reviseMerchantListings(tx, merchant.id, "gateway_changed", request, now);
      return { route: route!, created: false };
    }
    const [route] = await tx
      .insert(gatewayRoutes)
      .values({
        merchantId: merchant.id,
        slug: input.slug,
        upstreamUrl: input.upstream_url,
        tier,
        originSecret: newOriginSecret(),
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    // A concurrent request took the slug between our check and insert.
    if (!route) throw new AppError("conflict", `the slug ${input.slug} is taken`);
    await auditRoute(tx, "gateway.route.created", merchant.id, request, now, undefined, route);
    await reviseMerchantListings(tx, merchant.id, "gateway_changed", request, now);
    return { route, created: true };
  });
}

export async function getGatewayRoute(
  deps: Pick<GatewayServiceDeps, "db">,
  merchantId: string,
): Promise<GatewayRoute> {
  const route = await findGatewayRoute(deps, merchantId);
  if (!route) throw new AppError("gateway_route_not_found", "this merchant has no gateway route yet");
  return route;
}

/** The merchant's route, or null before one is configured. */
export async function findGatewayRoute(
  deps: Pick<GatewayServiceDeps, "db">,
  merchantId: string,
): Promise<GatewayRoute | null> {
  const [route] = await deps.db.db
    .select()
    .from(gatewayRoutes)
    .where(eq(gatewayRoutes.merchantId, merchantId));
  return route ?? null;
}

export async function findGatewayRouteBySlug(deps: Pick<GatewayServiceDeps, "db">, slug: string) {
  const [route] = await deps.db.db.select().from(gatewayRoutes).where(eq(gatewayRoutes.slug, slug));
  return route;
}

export async function rotateOriginSecret(
  deps: GatewayServiceDeps,
  merchantId: string,
  request: AuditRequest = {},
): Promise<GatewayRoute> {
  const now = deps.clock.now();
  return deps.db.db.transaction(async (tx) => {
    const [route] = await tx
      .update(gatewayRoutes)
      .set({ originSecret: newOriginSecret(), updatedAt: now })
      .where(eq(gatewayRoutes.merchantId, merchantId))
      .returning();
    if (!route) throw new AppError("gateway_route_not_found", "this merchant has no gateway route yet");
    await recordAudit(
      tx,
      {
        actor: { type: "merchant", id: merchantId },
        action: "gateway.origin_secret.rotated",
        target: { type: "gateway_route", id: route.slug },
        ip: request.ip,
        requestId: request.requestId,
      },
      now,
    );
    return route;
  });
}

/** The audited view of a route: never its origin secret. */
function routeAuditView(route: GatewayRoute): Record<string, unknown> {
  return { slug: route.slug, upstream_url: route.upstreamUrl, tier: route.tier };
}

/** Records a route change in the transaction that made it. */
async function auditRoute(
  tx: Transaction,
  action: "gateway.route.created" | "gateway.route.changed",
  merchantId: string,
  request: AuditRequest,
  now: Date,
  before: GatewayRoute | undefined,
  after: GatewayRoute,
): Promise<void> {
  await recordAudit(
    tx,
    {
      actor: { type: "merchant", id: merchantId },
      action,
      target: { type: "gateway_route", id: after.slug },
      ip: request.ip,
      requestId: request.requestId,
      before: before ? routeAuditView(before) : undefined,
      after: routeAuditView(after),
    },
    now,
  );
}
