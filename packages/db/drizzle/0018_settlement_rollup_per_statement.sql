-- Issue 15: the daily rollup follows settlements per STATEMENT, not per row. The row trigger of 0015 upserted the
-- same rollup row once per settlement; inside one transaction each upsert leaves a row version that cannot be pruned
-- yet, so a batch of n settlements cost O(n^2) (20,000 rows in one transaction: 45 s with it, 1.7 s without). These
-- statement triggers aggregate the transition tables and upsert each (day, network, chain, token) once. Same figures
-- as before: -old +new for rows not orphaned; a group whose net change is zero (state steps seen -> confirmed ->
-- final) is not touched, as the row trigger skipped them. Transition tables need one trigger per event.
DROP TRIGGER "settlements_rollup" ON "settlements";
--> statement-breakpoint
DROP FUNCTION "settlement_rollup_trigger"();
--> statement-breakpoint
DROP FUNCTION "settlement_rollup_add"(date, text, integer, text, integer, numeric, numeric, numeric, numeric);
--> statement-breakpoint
CREATE FUNCTION "settlement_rollup_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "settlement_daily_rollups" AS r ("day", "network", "chain_id", "token", "settlements", "total_amount", "merchant_amount", "treasury_amount", "ip_creator_amount")
  SELECT "day", "network", "chain_id", "token", sum("n"), sum("total"), sum("merchant"), sum("treasury"), sum("ip")
  FROM (
    SELECT ("seen_at" AT TIME ZONE 'UTC')::date AS "day", "network", "chain_id", "token", 1 AS "n",
      "total_amount" AS "total", "merchant_amount" AS "merchant", "treasury_amount" AS "treasury",
      "ip_creator_amount" AS "ip"
    FROM "new_rows" WHERE "state" <> 'orphaned'
  ) AS d
  GROUP BY "day", "network", "chain_id", "token"
  HAVING sum("n") <> 0 OR sum("total") <> 0 OR sum("merchant") <> 0 OR sum("treasury") <> 0 OR sum("ip") <> 0
  -- One order for every writer: two transactions touching the same groups wait instead of deadlocking.
  ORDER BY "day", "network", "chain_id", "token"
  ON CONFLICT ("day", "network", "chain_id", "token") DO UPDATE SET
    "settlements" = r."settlements" + excluded."settlements",
    "total_amount" = r."total_amount" + excluded."total_amount",
    "merchant_amount" = r."merchant_amount" + excluded."merchant_amount",
    "treasury_amount" = r."treasury_amount" + excluded."treasury_amount",
    "ip_creator_amount" = r."ip_creator_amount" + excluded."ip_creator_amount";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "settlement_rollup_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "settlement_daily_rollups" AS r ("day", "network", "chain_id", "token", "settlements", "total_amount", "merchant_amount", "treasury_amount", "ip_creator_amount")
  SELECT "day", "network", "chain_id", "token", sum("n"), sum("total"), sum("merchant"), sum("treasury"), sum("ip")
  FROM (
    SELECT ("seen_at" AT TIME ZONE 'UTC')::date AS "day", "network", "chain_id", "token", -1 AS "n",
      -"total_amount" AS "total", -"merchant_amount" AS "merchant", -"treasury_amount" AS "treasury",
      -"ip_creator_amount" AS "ip"
    FROM "old_rows" WHERE "state" <> 'orphaned'
    UNION ALL
    SELECT ("seen_at" AT TIME ZONE 'UTC')::date AS "day", "network", "chain_id", "token", 1 AS "n",
      "total_amount" AS "total", "merchant_amount" AS "merchant", "treasury_amount" AS "treasury",
      "ip_creator_amount" AS "ip"
    FROM "new_rows" WHERE "state" <> 'orphaned'
  ) AS d
  GROUP BY "day", "network", "chain_id", "token"
  HAVING sum("n") <> 0 OR sum("total") <> 0 OR sum("merchant") <> 0 OR sum("treasury") <> 0 OR sum("ip") <> 0
  -- One order for every writer: two transactions touching the same groups wait instead of deadlocking.
  ORDER BY "day", "network", "chain_id", "token"
  ON CONFLICT ("day", "network", "chain_id", "token") DO UPDATE SET
    "settlements" = r."settlements" + excluded."settlements",
    "total_amount" = r."total_amount" + excluded."total_amount",
    "merchant_amount" = r."merchant_amount" + excluded."merchant_amount",
    "treasury_amount" = r."treasury_amount" + excluded."treasury_amount",
    "ip_creator_amount" = r."ip_creator_amount" + excluded."ip_creator_amount";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "settlement_rollup_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "settlement_daily_rollups" AS r ("day", "network", "chain_id", "token", "settlements", "total_amount", "merchant_amount", "treasury_amount", "ip_creator_amount")
  SELECT "day", "network", "chain_id", "token", sum("n"), sum("total"), sum("merchant"), sum("treasury"), sum("ip")
  FROM (
    SELECT ("seen_at" AT TIME ZONE 'UTC')::date AS "day", "network", "chain_id", "token", -1 AS "n",
      -"total_amount" AS "total", -"merchant_amount" AS "merchant", -"treasury_amount" AS "treasury",
      -"ip_creator_amount" AS "ip"
    FROM "old_rows" WHERE "state" <> 'orphaned'
  ) AS d
  GROUP BY "day", "network", "chain_id", "token"
  HAVING sum("n") <> 0 OR sum("total") <> 0 OR sum("merchant") <> 0 OR sum("treasury") <> 0 OR sum("ip") <> 0
  -- One order for every writer: two transactions touching the same groups wait instead of deadlocking.
  ORDER BY "day", "network", "chain_id", "token"
  ON CONFLICT ("day", "network", "chain_id", "token") DO UPDATE SET
    "settlements" = r."settlements" + excluded."settlements",
    "total_amount" = r."total_amount" + excluded."total_amount",
    "merchant_amount" = r."merchant_amount" + excluded."merchant_amount",
    "treasury_amount" = r."treasury_amount" + excluded."treasury_amount",
    "ip_creator_amount" = r."ip_creator_amount" + excluded."ip_creator_amount";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "settlements_rollup_insert" AFTER INSERT ON "settlements" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "settlement_rollup_inserted"();
--> statement-breakpoint
CREATE TRIGGER "settlements_rollup_update" AFTER UPDATE ON "settlements" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "settlement_rollup_updated"();
--> statement-breakpoint
CREATE TRIGGER "settlements_rollup_delete" AFTER DELETE ON "settlements" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "settlement_rollup_deleted"();
