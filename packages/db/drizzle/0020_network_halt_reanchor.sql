ALTER TABLE "network_halts" ADD COLUMN "reanchored_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "network_halts" ADD COLUMN "reanchored_block" bigint;--> statement-breakpoint
ALTER TABLE "network_halts" ADD COLUMN "reanchor_orphaned" integer;--> statement-breakpoint
UPDATE "network_halts" SET "reanchored_at" = "resumed_at" WHERE "resumed_at" IS NOT NULL;
