CREATE TABLE "gateway_routes" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"upstream_url" text NOT NULL,
	"tier" text NOT NULL,
	"origin_secret" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gateway_routes_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
ALTER TABLE "gateway_routes" ADD CONSTRAINT "gateway_routes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;