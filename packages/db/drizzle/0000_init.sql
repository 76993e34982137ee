CREATE TABLE "merchant_tiers" (
	"merchant_id" text NOT NULL,
	"tier" text NOT NULL,
	"unit_price_micro_usd" bigint NOT NULL,
	CONSTRAINT "merchant_tiers_merchant_id_tier_pk" PRIMARY KEY("merchant_id","tier"),
	CONSTRAINT "merchant_tiers_price_positive" CHECK ("merchant_tiers"."unit_price_micro_usd" > 0)
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"pay_to" jsonb NOT NULL,
	"settlement_version" text NOT NULL,
	"network_mode" text NOT NULL,
	"settlement_chain" text NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"secret_rotated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "merchants_secret_hash_unique" UNIQUE("secret_hash"),
	CONSTRAINT "merchants_id_prefix" CHECK ("merchants"."id" like 'mrch\_%')
);
--> statement-breakpoint
ALTER TABLE "merchant_tiers" ADD CONSTRAINT "merchant_tiers_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "merchants_pay_to_evm_idx" ON "merchants" USING btree (lower("pay_to" ->> 'evm'));