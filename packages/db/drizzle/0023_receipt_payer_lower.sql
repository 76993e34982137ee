-- Receipts name their payer lower-case, as settlements, the receipt token's `sub` and the receipt.issued event
-- already do (decision 0069): the operator's agent view and /v1/user usage compare lower-case addresses.
-- hand-written:
UPDATE "receipts" SET "payer" = lower("payer") WHERE "payer" <> lower("payer");
