CREATE TABLE "bridge_unserved_payments" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "bridge_unserved_payments_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"order_id" text NOT NULL,
	"provider" text NOT NULL,
	"network" text NOT NULL,
	"chain_id" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"payer" text NOT NULL,
	"merchant_address" text NOT NULL,
	"token" text NOT NULL,
	"total_amount" numeric(78, 0) NOT NULL,
	"last_error" text NOT NULL,
	"attempts" integer NOT NULL,
	"first_failed_at" timestamp with time zone NOT NULL,
	"last_failed_at" timestamp with time zone NOT NULL,
	"replayable_until" timestamp with time zone NOT NULL,
	"served_at" timestamp with time zone,
	"resolution" text,
	"note" text,
	"refund_tx_hash" text,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "bridge_unserved_payments_order_id_unique" UNIQUE("order_id"),
	CONSTRAINT "bridge_unserved_payments_order_prefix" CHECK ("bridge_unserved_payments"."order_id" like 'ord\_%'),
	CONSTRAINT "bridge_unserved_payments_refund_tx" CHECK ("bridge_unserved_payments"."refund_tx_hash" is null or "bridge_unserved_payments"."refund_tx_hash" ~ '^0x[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE INDEX "bridge_unserved_payments_open_idx" ON "bridge_unserved_payments" USING btree ("served_at","resolution","seq");--> statement-breakpoint
CREATE INDEX "user_accounts_created_idx" ON "user_accounts" USING btree ("created_at","id");