CREATE TABLE "receipt_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"activates_at" timestamp with time zone NOT NULL,
	"retired_at" timestamp with time zone,
	"public_jwk" jsonb NOT NULL,
	"private_jwk_ciphertext" text NOT NULL,
	CONSTRAINT "receipt_keys_sealed" CHECK ("receipt_keys"."private_jwk_ciphertext" like 'v1.%')
);
--> statement-breakpoint
CREATE UNIQUE INDEX "receipt_keys_one_unretired" ON "receipt_keys" USING btree ((true)) WHERE "receipt_keys"."retired_at" is null;