CREATE TABLE "failed_payment_resolutions" (
	"settlement_id" bigint PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"resolution" text NOT NULL,
	"note" text NOT NULL,
	"refund_tx_hash" text,
	"resolved_by" text NOT NULL,
	"resolved_at" timestamp with time zone NOT NULL,
	CONSTRAINT "failed_payment_resolutions_refund_tx" CHECK ("failed_payment_resolutions"."refund_tx_hash" is null or "failed_payment_resolutions"."refund_tx_hash" ~ '^0x[0-9a-f]{64}$')
);
--> statement-breakpoint
ALTER TABLE "failed_payment_resolutions" ADD CONSTRAINT "failed_payment_resolutions_settlement_id_settlements_id_fk" FOREIGN KEY ("settlement_id") REFERENCES "public"."settlements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "failed_payment_resolutions_resolved_idx" ON "failed_payment_resolutions" USING btree ("resolved_at");