CREATE INDEX "settlements_merchant_id_idx" ON "settlements" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "settlements_tx_hash_idx" ON "settlements" USING btree ("tx_hash");--> statement-breakpoint
CREATE INDEX "settlements_seen_at_idx" ON "settlements" USING btree ("seen_at");--> statement-breakpoint
CREATE INDEX "merchants_name_prefix_idx" ON "merchants" USING btree (lower("name") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "merchants_created_idx" ON "merchants" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "receipts_merchant_idx" ON "receipts" USING btree ("merchant_id","issued_at");--> statement-breakpoint
CREATE INDEX "receipts_payer_idx" ON "receipts" USING btree ("payer");--> statement-breakpoint
CREATE INDEX "receipts_tx_hash_idx" ON "receipts" USING btree ("tx_hash");