CREATE TABLE "user_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_login_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	CONSTRAINT "user_accounts_id_prefix" CHECK ("user_accounts"."id" like 'acct\_%')
);
--> statement-breakpoint
CREATE TABLE "user_nonces" (
	"nonce_hash" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"wallet_kind" text NOT NULL,
	"wallet_address" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"idle_expires_at" timestamp with time zone NOT NULL,
	"absolute_expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"ip" text NOT NULL,
	"user_agent" text
);
--> statement-breakpoint
CREATE TABLE "user_wallets" (
	"kind" text NOT NULL,
	"address" text NOT NULL,
	"account_id" text NOT NULL,
	"linked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "user_wallets_kind_address_pk" PRIMARY KEY("kind","address")
);
--> statement-breakpoint
ALTER TABLE "user_sessions" ADD CONSTRAINT "user_sessions_account_id_user_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."user_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_wallets" ADD CONSTRAINT "user_wallets_account_id_user_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."user_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "user_nonces_expires_idx" ON "user_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "user_sessions_account_idx" ON "user_sessions" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "user_wallets_account_idx" ON "user_wallets" USING btree ("account_id","linked_at");