CREATE TABLE "merchant_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"author_admin_id" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "merchant_notes_id_prefix" CHECK ("merchant_notes"."id" like 'mnote\_%'),
	CONSTRAINT "merchant_notes_body_length" CHECK (char_length("merchant_notes"."body") between 1 and 2000)
);
--> statement-breakpoint
CREATE TABLE "admin_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_admin_id" text,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "admin_invitations_token_hash_unique" UNIQUE("token_hash"),
	CONSTRAINT "admin_invitations_id_prefix" CHECK ("admin_invitations"."id" like 'ainv\_%')
);
--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "suspension_reason" text;--> statement-breakpoint
ALTER TABLE "merchant_notes" ADD CONSTRAINT "merchant_notes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "merchant_notes_merchant_idx" ON "merchant_notes" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "admin_invitations_email_idx" ON "admin_invitations" USING btree ("email","created_at");--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_suspension_has_reason" CHECK (("merchants"."suspended_at" is null) = ("merchants"."suspension_reason" is null));