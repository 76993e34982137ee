CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"locked_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "quotes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"resource" text NOT NULL,
	"tier" text NOT NULL,
	"payer" text NOT NULL,
	"units" integer NOT NULL,
	"unit_price_micro_usd" bigint NOT NULL,
	"amount_micro_usd" bigint NOT NULL,
	"network" text NOT NULL,
	"chain_id" integer NOT NULL,
	"settlement_version" text NOT NULL,
	"splitter" text NOT NULL,
	"pay_to" text NOT NULL,
	"asset" text NOT NULL,
	"token" text,
	"decimals" integer NOT NULL,
	"amount_atomic" numeric(78, 0) NOT NULL,
	"merchant_amount" numeric(78, 0) NOT NULL,
	"treasury_amount" numeric(78, 0) NOT NULL,
	"ip_creator_amount" numeric(78, 0) NOT NULL,
	"economics_profile" text NOT NULL,
	"rate" jsonb,
	"settlement_call" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "quotes_id_prefix" CHECK ("quotes"."id" like 'qt\_%')
);
--> statement-breakpoint
CREATE TABLE "receipts" (
	"id" text PRIMARY KEY NOT NULL,
	"quote_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"payer" text NOT NULL,
	"chain_id" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"confirmations" integer NOT NULL,
	"quota" integer NOT NULL,
	"kid" text NOT NULL,
	"token" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "receipts_quote_id_unique" UNIQUE("quote_id"),
	CONSTRAINT "receipts_payment_log_unique" UNIQUE("chain_id","tx_hash","log_index"),
	CONSTRAINT "receipts_id_prefix" CHECK ("receipts"."id" like 'rcpt\_%')
);
--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_quote_id_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."quotes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "quotes_merchant_idx" ON "quotes" USING btree ("merchant_id","created_at");