CREATE TABLE "identity_nonces" (
	"nonce_hash" text PRIMARY KEY NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "identity_nonces_expires_idx" ON "identity_nonces" USING btree ("expires_at");