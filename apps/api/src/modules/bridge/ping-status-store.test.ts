import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { bridgeProviders } from "@tollgate/db";
import { eq } from "drizzle-orm";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, storageDatabaseKinds } from "../../test/harness";
import { signInOperator } from "../marketplace/listings-testing";
import { PROVIDERS_PATH, seedProvider, startBridgeApi } from "./providers-testing";

describe.each(storageDatabaseKinds("pglite"))("the pinger's results survive a restart on %s", (kind) => {
  let server: Server;
  let base: string;
  let live = true;
  beforeAll(async () => {
    const app = express();
    app.get("/remote/.well-known/x402.json", (_req, res) => {
      if (live) res.json({ name: "a remote bridge" });
      else res.status(503).json({ error: "down" });
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/remote`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("writes each result to the row; after a restart the last live time and failures in a row carry on", async () => {
    const db = await createTestDatabase(kind);
    const providers = [seedProvider("remote", { ping_url: base }), seedProvider("local")];
    try {
      live = true;
      const first = await startBridgeApi(kind, providers, { db });
      const [result] = await first.bridge!.pinger.pingAll();
      expect(result).toMatchObject({ provider: "remote", state: "live", consecutiveFailures: 0 });
      live = false;
      await first.bridge!.pinger.pingAll();
      const row = async () =>
        (await db.db.select().from(bridgeProviders).where(eq(bridgeProviders.id, "remote")))[0]!;
      const afterFirst = await row();
      expect(afterFirst).toMatchObject({
        pingState: "down",
        pingReason: "http_503",
        pingConsecutiveFailures: 1,
      });
      expect(afterFirst.pingLastLiveAt).toEqual(result!.lastLiveAt);
      await first.close();

      const second = await startBridgeApi(kind, providers, { db });
      try {
        // Before any new check, the operator view shows what the last process saw.
        const operator = await signInOperator(second);
        const list = await second.call("GET", PROVIDERS_PATH, { headers: operator.headers });
        const remote = (list.json.providers as { id: string; ping: Record<string, unknown> | null }[]).find(
          (p) => p.id === "remote",
        );
        expect(remote?.ping).toMatchObject({
          state: "down",
          reason: "http_503",
          consecutive_failures: 1,
          last_live_at: result!.lastLiveAt!.toISOString(),
        });
        const [again] = await second.bridge!.pinger.pingAll();
        expect(again).toMatchObject({
          state: "down",
          consecutiveFailures: 2,
          lastLiveAt: result!.lastLiveAt,
        });
        expect((await row()).pingConsecutiveFailures).toBe(2);
        live = true;
        const [back] = await second.bridge!.pinger.pingAll();
        expect(back).toMatchObject({ state: "live", consecutiveFailures: 0 });
        expect((await row()).pingConsecutiveFailures).toBe(0);
        const local = (await db.db.select().from(bridgeProviders).where(eq(bridgeProviders.id, "local")))[0];
        expect(local?.pingCheckedAt).toBeNull();
      } finally {
        await second.close();
      }
    } finally {
      await db.close();
    }
  });
});
