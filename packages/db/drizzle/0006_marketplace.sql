CREATE TABLE "listings" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"status" text NOT NULL,
	"revision" integer NOT NULL,
	"content" jsonb NOT NULL,
	"rejection_reason" text,
	"published" jsonb,
	"published_category" text,
	"published_at" timestamp with time zone,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "listings_id_prefix" CHECK ("listings"."id" like 'lst\_%')
);
--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "listings_merchant_idx" ON "listings" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "listings_status_idx" ON "listings" USING btree ("status","updated_at");--> statement-breakpoint
CREATE INDEX "listings_published_idx" ON "listings" USING btree ("published_at","id") WHERE "listings"."published" is not null;