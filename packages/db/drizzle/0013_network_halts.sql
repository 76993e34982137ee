CREATE TABLE "network_halts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"network" text NOT NULL,
	"reason" text NOT NULL,
	"block_number" bigint,
	"halted_at" timestamp with time zone NOT NULL,
	"resumed_at" timestamp with time zone,
	"resumed_by" text,
	"resume_reason" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "network_halts_open_unique" ON "network_halts" USING btree ("chain_id") WHERE "network_halts"."resumed_at" is null;--> statement-breakpoint
CREATE INDEX "network_halts_network_idx" ON "network_halts" USING btree ("network","halted_at");