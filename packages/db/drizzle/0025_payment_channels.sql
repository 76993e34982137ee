CREATE TABLE "channel_claims" (
	"id" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"state" text NOT NULL,
	"entries" jsonb NOT NULL,
	"tx_hash" text,
	"attempts" integer NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "channel_claims_id_prefix" CHECK ("channel_claims"."id" like 'clm\_%')
);
--> statement-breakpoint
CREATE TABLE "payment_channels" (
	"chain_id" integer NOT NULL,
	"channel_id" text NOT NULL,
	"status" text NOT NULL,
	"config" jsonb NOT NULL,
	"payer" text NOT NULL,
	"receiver" text NOT NULL,
	"token" text NOT NULL,
	"balance" numeric(78, 0) NOT NULL,
	"total_claimed" numeric(78, 0) NOT NULL,
	"charged_cumulative" numeric(78, 0) NOT NULL,
	"signed_max_claimable" numeric(78, 0) NOT NULL,
	"signature" text NOT NULL,
	"withdraw_requested_at" bigint NOT NULL,
	"refund_nonce" bigint NOT NULL,
	"onchain_synced_at" bigint,
	"last_request_at" bigint NOT NULL,
	"pending_id" text,
	"pending_signed_max_claimable" numeric(78, 0),
	"pending_expires_at" bigint,
	"claim_id" text,
	"version" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payment_channels_chain_id_channel_id_pk" PRIMARY KEY("chain_id","channel_id"),
	CONSTRAINT "payment_channels_pending_all_or_none" CHECK (("payment_channels"."pending_id" is null) = ("payment_channels"."pending_expires_at" is null))
);
--> statement-breakpoint
CREATE INDEX "channel_claims_unfinished_idx" ON "channel_claims" USING btree ("chain_id","created_at") WHERE "channel_claims"."state" in ('pending', 'submitted');--> statement-breakpoint
CREATE INDEX "payment_channels_claimable_idx" ON "payment_channels" USING btree ("chain_id","receiver") WHERE "payment_channels"."status" = 'open' and "payment_channels"."claim_id" is null and "payment_channels"."charged_cumulative" > "payment_channels"."total_claimed";