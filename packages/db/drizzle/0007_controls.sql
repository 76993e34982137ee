CREATE TABLE "network_configs" (
	"network" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"treasury" text NOT NULL,
	"splitters" jsonb NOT NULL,
	"confirmations" integer NOT NULL,
	"source" jsonb NOT NULL,
	"initialized_by" text NOT NULL,
	"initialized_at" timestamp with time zone NOT NULL,
	CONSTRAINT "network_configs_confirmations" CHECK ("network_configs"."confirmations" >= 0)
);
--> statement-breakpoint
CREATE TABLE "service_pauses" (
	"scope" text PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"paused_by" text NOT NULL,
	"paused_at" timestamp with time zone NOT NULL
);
