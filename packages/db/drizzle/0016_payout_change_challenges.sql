CREATE TABLE "payout_change_challenges" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"nonce_hash" text NOT NULL,
	"new_pay_to" jsonb NOT NULL,
	"signer_kind" text NOT NULL,
	"signer_address" text NOT NULL,
	"message" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payout_change_challenges_nonce_hash_unique" UNIQUE("nonce_hash")
);
--> statement-breakpoint
ALTER TABLE "payout_change_challenges" ADD CONSTRAINT "payout_change_challenges_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;