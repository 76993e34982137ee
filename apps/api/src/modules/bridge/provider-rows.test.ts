import { bridgeProviders } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createTestDatabase, storageDatabaseKinds } from "../../test/harness";
import { signInOperator } from "../marketplace/listings-testing";
import { PROVIDERS_PATH, seedProvider, servedIds, startBridgeApi } from "./providers-testing";

describe.each(storageDatabaseKinds("pglite"))("bridge providers seeded from the file on %s", (kind) => {
  it("inserts missing ids only: a changed file never rewrites, re-enables or deletes a stored provider", async () => {
    const db = await createTestDatabase(kind);
    try {
      const first = await startBridgeApi(kind, [seedProvider("alpha"), seedProvider("beta")], { db });
      const operator = await signInOperator(first);
      const disabled = await first.call("POST", `${PROVIDERS_PATH}/beta/disable`, {
        headers: operator.headers,
        body: {},
      });
      expect(disabled.status).toBe(200);
      const created = await first.call("POST", PROVIDERS_PATH, {
        headers: operator.headers,
        body: seedProvider("made-here"),
      });
      expect(created.status).toBe(201);
      await first.close();

      // Restart with a changed file: alpha's price differs, beta is still listed, gamma is new, made-here absent.
      const second = await startBridgeApi(
        kind,
        [seedProvider("alpha", { price_usdc_units: "99" }), seedProvider("beta"), seedProvider("gamma")],
        { db },
      );
      try {
        const rows = await second.deps.db.db.select().from(bridgeProviders);
        const byId = new Map(rows.map((row) => [row.id, row]));
        expect([...byId.keys()].sort()).toEqual(["alpha", "beta", "gamma", "made-here"]);
        expect(byId.get("alpha")?.priceUsdcUnits).toBe("1500");
        expect(byId.get("beta")?.disabledAt).toBeInstanceOf(Date);
        expect(byId.get("gamma")?.source).toBe("file");
        expect(byId.get("made-here")?.source).toBe("operator");
        expect(await servedIds(second)).toEqual(["alpha", "gamma", "made-here"]);
      } finally {
        await second.close();
      }
    } finally {
      await db.close();
    }
  });

  it("another process sees an operator write within PAUSE_POLL_MS, not before (bounded cache)", async () => {
    const db = await createTestDatabase(kind);
    let now = Date.parse("2026-11-23T12:00:00Z");
    const clock = { now: () => new Date(now) };
    const env = { PAUSE_POLL_MS: "2000" };
    const writer = await startBridgeApi(kind, [seedProvider("alpha")], { db, env });
    const reader = await startBridgeApi(kind, [seedProvider("alpha")], { db, clock, env });
    try {
      expect(await servedIds(reader)).toEqual(["alpha"]);
      const operator = await signInOperator(writer);
      const created = await writer.call("POST", PROVIDERS_PATH, {
        headers: operator.headers,
        body: seedProvider("fresh"),
      });
      expect(created.status).toBe(201);
      expect(await servedIds(writer)).toEqual(["alpha", "fresh"]);
      now += 1_999;
      expect(await servedIds(reader)).toEqual(["alpha"]);
      now += 1;
      expect(await servedIds(reader)).toEqual(["alpha", "fresh"]);
      const stored = await reader.deps.db.db
        .select()
        .from(bridgeProviders)
        .where(eq(bridgeProviders.id, "fresh"));
      expect(stored).toHaveLength(1);
    } finally {
      await reader.close();
      await writer.close();
      await db.close();
    }
  });
});
