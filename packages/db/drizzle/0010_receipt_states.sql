CREATE TABLE "receipt_state_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "receipt_state_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"receipt_id" text NOT NULL,
	"from_state" text NOT NULL,
	"to_state" text NOT NULL,
	"reason" text NOT NULL,
	"chain_id" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "settlements" ADD COLUMN "quote_mismatch" jsonb;--> statement-breakpoint
ALTER TABLE "receipts" ADD COLUMN "state" text DEFAULT 'valid' NOT NULL;--> statement-breakpoint
ALTER TABLE "receipts" ADD COLUMN "state_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "receipts" ADD COLUMN "revoke_after_block" bigint;--> statement-breakpoint
ALTER TABLE "receipt_state_changes" ADD CONSTRAINT "receipt_state_changes_receipt_id_receipts_id_fk" FOREIGN KEY ("receipt_id") REFERENCES "public"."receipts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "receipt_state_changes_receipt_idx" ON "receipt_state_changes" USING btree ("receipt_id","id");--> statement-breakpoint
CREATE INDEX "receipts_not_valid_idx" ON "receipts" USING btree ("merchant_id","expires_at") WHERE "receipts"."state" <> 'valid';--> statement-breakpoint
CREATE INDEX "receipts_chain_state_idx" ON "receipts" USING btree ("chain_id","state","block_number");