ALTER TABLE "settlements" ADD COLUMN "scheme" text DEFAULT 'splitter' NOT NULL;--> statement-breakpoint
ALTER TABLE "settlements" ADD COLUMN "channel_id" text;