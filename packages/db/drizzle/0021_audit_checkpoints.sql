CREATE TABLE "audit_checkpoints" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_checkpoints_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"through_seq" bigint NOT NULL,
	"anchor_hash" text NOT NULL,
	"from_hash" text NOT NULL,
	"pruned_count" bigint NOT NULL,
	"export_sha256" text NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_checkpoints_id_unique" UNIQUE("id"),
	CONSTRAINT "audit_checkpoints_id_prefix" CHECK ("audit_checkpoints"."id" like 'ackp\_%')
);
--> statement-breakpoint
CREATE INDEX "audit_checkpoints_through_idx" ON "audit_checkpoints" USING btree ("through_seq");--> statement-breakpoint
-- hand-written:
-- Retention (docs/decisions/0065-audit-retention-and-checkpoints.md): an audit event may be deleted only once a
-- checkpoint covers it (the prune inserts the checkpoint, then deletes in the same transaction). UPDATE and
-- TRUNCATE stay refused. Tampering below this level is still detected by `pnpm audit:verify`.
CREATE OR REPLACE FUNCTION "audit_events_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND EXISTS (SELECT 1 FROM "audit_checkpoints" WHERE "through_seq" >= OLD."seq") THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE FUNCTION "audit_checkpoints_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_checkpoints is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_checkpoints_no_update_delete" BEFORE UPDATE OR DELETE ON "audit_checkpoints"
  FOR EACH ROW EXECUTE FUNCTION "audit_checkpoints_refuse_change"();
--> statement-breakpoint
CREATE TRIGGER "audit_checkpoints_no_truncate" BEFORE TRUNCATE ON "audit_checkpoints"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_checkpoints_refuse_change"();
