DROP INDEX "settlements_payer_idx";--> statement-breakpoint
CREATE INDEX "settlements_payer_idx" ON "settlements" USING btree ("payer","id");