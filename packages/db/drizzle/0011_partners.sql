CREATE TABLE "partners" (
	"wallet" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"contact" text,
	"notes" text,
	"created_by" text NOT NULL,
	"updated_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "partners_wallet_lower_evm" CHECK ("partners"."wallet" ~ '^0x[0-9a-f]{40}$')
);
--> statement-breakpoint
CREATE INDEX "settlements_merchant_seen_idx" ON "settlements" USING btree ("merchant_id","seen_at");--> statement-breakpoint
CREATE INDEX "settlements_merchant_address_idx" ON "settlements" USING btree ("merchant_address","network");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_merchant_created_idx" ON "webhook_deliveries" USING btree ("merchant_id","created_at");