CREATE TABLE "listing_revisions" (
	"id" text PRIMARY KEY NOT NULL,
	"listing_id" text NOT NULL,
	"number" integer NOT NULL,
	"status" text NOT NULL,
	"cause" text NOT NULL,
	"content" jsonb NOT NULL,
	"merchant_name" text NOT NULL,
	"gateway" jsonb,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	CONSTRAINT "listing_revisions_number_unique" UNIQUE("listing_id","number"),
	CONSTRAINT "listing_revisions_id_prefix" CHECK ("listing_revisions"."id" like 'lrev\_%')
);
--> statement-breakpoint
DROP INDEX "listings_published_idx";--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "live_revision_id" text;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "pending_revision_id" text;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "suspension_reason" text;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "suspended_by" text;--> statement-breakpoint
ALTER TABLE "listing_revisions" ADD CONSTRAINT "listing_revisions_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "listings_live_idx" ON "listings" USING btree ("published_at","id") WHERE "listings"."status" = 'approved';--> statement-breakpoint
-- hand-written:
-- Backfill (docs/decisions/0067-listing-revisions.md): every listing with an approved copy gets it as its live,
-- approved revision (with the merchant name and gateway route of today, which were public with it), and its
-- status becomes approved; a revision waiting for review becomes the pending revision. Ids are derived from the
-- listing id so the backfill can be re-applied without duplicates.
INSERT INTO "listing_revisions" ("id", "listing_id", "number", "status", "cause", "content", "merchant_name", "gateway", "created_at", "decided_at", "decided_by")
SELECT 'lrev_' || translate(md5(l."id" || ':live'), '0', 'z'), l."id",
  CASE WHEN l."status" = 'approved' THEN l."revision" ELSE greatest(l."revision" - 1, 1) END,
  'approved', 'migrated', l."published", m."name",
  CASE WHEN g.merchant_id IS NULL THEN NULL ELSE jsonb_build_object('slug', g.slug, 'upstream_url', g.upstream_url, 'tier', g.tier) END,
  coalesce(l."published_at", l."updated_at"), l."decided_at", l."decided_by"
FROM "listings" l JOIN "merchants" m ON m."id" = l."merchant_id" LEFT JOIN "gateway_routes" g ON g."merchant_id" = l."merchant_id"
WHERE l."published" IS NOT NULL
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "listing_revisions" ("id", "listing_id", "number", "status", "cause", "content", "merchant_name", "gateway", "created_at")
SELECT 'lrev_' || translate(md5(l."id" || ':pending'), '0', 'z'), l."id", l."revision", 'pending', 'migrated', l."content", m."name",
  CASE WHEN g.merchant_id IS NULL THEN NULL ELSE jsonb_build_object('slug', g.slug, 'upstream_url', g.upstream_url, 'tier', g.tier) END,
  l."updated_at"
FROM "listings" l JOIN "merchants" m ON m."id" = l."merchant_id" LEFT JOIN "gateway_routes" g ON g."merchant_id" = l."merchant_id"
WHERE l."status" = 'pending'
ON CONFLICT DO NOTHING;--> statement-breakpoint
UPDATE "listings" SET "pending_revision_id" = 'lrev_' || translate(md5("id" || ':pending'), '0', 'z') WHERE "status" = 'pending';--> statement-breakpoint
UPDATE "listings" SET "live_revision_id" = 'lrev_' || translate(md5("id" || ':live'), '0', 'z'), "status" = 'approved' WHERE "published" IS NOT NULL;
