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
CREATE TABLE "settlement_daily_rollups" (
	"day" date NOT NULL,
	"network" text NOT NULL,
	"chain_id" integer NOT NULL,
	"token" text NOT NULL,
	"settlements" bigint NOT NULL,
	"total_amount" numeric(78, 0) NOT NULL,
	"merchant_amount" numeric(78, 0) NOT NULL,
	"treasury_amount" numeric(78, 0) NOT NULL,
	"ip_creator_amount" numeric(78, 0) NOT NULL,
	CONSTRAINT "settlement_daily_rollups_day_network_chain_id_token_pk" PRIMARY KEY("day","network","chain_id","token")
);
--> statement-breakpoint
CREATE INDEX "bridge_unserved_payments_open_idx" ON "bridge_unserved_payments" USING btree ("served_at","resolution","seq");--> statement-breakpoint
CREATE INDEX "user_accounts_created_idx" ON "user_accounts" USING btree ("created_at","id");--> statement-breakpoint
-- Issue 10: the daily rollup follows every settlement change in the same transaction (reorg reverts included).
CREATE FUNCTION "settlement_rollup_add"(p_day date, p_network text, p_chain integer, p_token text, p_sign integer, p_total numeric, p_merchant numeric, p_treasury numeric, p_ip numeric) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "settlement_daily_rollups" AS r ("day", "network", "chain_id", "token", "settlements", "total_amount", "merchant_amount", "treasury_amount", "ip_creator_amount")
  VALUES (p_day, p_network, p_chain, p_token, p_sign, p_sign * p_total, p_sign * p_merchant, p_sign * p_treasury, p_sign * p_ip)
  ON CONFLICT ("day", "network", "chain_id", "token") DO UPDATE SET
    "settlements" = r."settlements" + excluded."settlements",
    "total_amount" = r."total_amount" + excluded."total_amount",
    "merchant_amount" = r."merchant_amount" + excluded."merchant_amount",
    "treasury_amount" = r."treasury_amount" + excluded."treasury_amount",
    "ip_creator_amount" = r."ip_creator_amount" + excluded."ip_creator_amount";
END $$;
--> statement-breakpoint
CREATE FUNCTION "settlement_rollup_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- State steps (seen -> confirmed -> final) change nothing counted: skip them without touching the rollup row.
  IF TG_OP = 'UPDATE'
    AND (OLD."state" = 'orphaned') = (NEW."state" = 'orphaned')
    AND OLD."seen_at" = NEW."seen_at" AND OLD."network" = NEW."network" AND OLD."chain_id" = NEW."chain_id"
    AND OLD."token" = NEW."token" AND OLD."total_amount" = NEW."total_amount"
    AND OLD."merchant_amount" = NEW."merchant_amount" AND OLD."treasury_amount" = NEW."treasury_amount"
    AND OLD."ip_creator_amount" = NEW."ip_creator_amount" THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."state" <> 'orphaned' THEN
    PERFORM "settlement_rollup_add"((OLD."seen_at" AT TIME ZONE 'UTC')::date, OLD."network", OLD."chain_id", OLD."token", -1, OLD."total_amount", OLD."merchant_amount", OLD."treasury_amount", OLD."ip_creator_amount");
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."state" <> 'orphaned' THEN
    PERFORM "settlement_rollup_add"((NEW."seen_at" AT TIME ZONE 'UTC')::date, NEW."network", NEW."chain_id", NEW."token", 1, NEW."total_amount", NEW."merchant_amount", NEW."treasury_amount", NEW."ip_creator_amount");
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "settlements_rollup" AFTER INSERT OR UPDATE OR DELETE ON "settlements" FOR EACH ROW EXECUTE FUNCTION "settlement_rollup_trigger"();
--> statement-breakpoint
INSERT INTO "settlement_daily_rollups" ("day", "network", "chain_id", "token", "settlements", "total_amount", "merchant_amount", "treasury_amount", "ip_creator_amount")
SELECT ("seen_at" AT TIME ZONE 'UTC')::date, "network", "chain_id", "token", count(*), sum("total_amount"), sum("merchant_amount"), sum("treasury_amount"), sum("ip_creator_amount")
FROM "settlements" WHERE "state" <> 'orphaned'
GROUP BY 1, 2, 3, 4;
