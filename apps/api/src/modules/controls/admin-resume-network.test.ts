import { auditEvents, networkHalts } from "@tollgate/db";
import { eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";

const REASON = "reorg on chain 80002 at block 120 is deeper than maxReorgDepth 64 (depth 70)";

describe.each(storageDatabaseKinds("pglite"))("POST /api/admin/networks/{network}/resume on %s", (kind) => {
  let api: TestApi;
  let operator: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind);
    operator = await signInAs(api, "operator");
  });
  afterAll(async () => {
    await api?.close();
  });
  beforeEach(async () => {
    await api.deps.db.db.delete(networkHalts);
  });
  // What the indexer writes when a reorg is deeper than maxReorgDepth.
  const halt = (network = "amoy", chainId = 80002) =>
    api.deps.db.db.insert(networkHalts).values({
      chainId,
      network,
      reason: REASON,
      blockNumber: 120n,
      haltedAt: new Date("2026-01-01T00:00:00Z"),
    });
  const resume = (network: string, body: unknown, headers = operator.acting) =>
    api.call("POST", `/api/admin/networks/${network}/resume`, { body, headers });

  it("happy: the halt shows in /readyz and the overview; the resume closes it, keeps it as history, audits it", async () => {
    await halt();
    const ready = await api.call("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.json).toMatchObject({
      status: "degraded",
      database: { status: "ok", kind },
      indexer: { status: "degraded", reason: "halted: amoy", halted_networks: ["amoy"] },
    });
    const overview = await api.call("GET", "/admin/api/overview", { headers: { cookie: operator.cookie } });
    expect(overview.status, overview.text).toBe(200);
    expect(overview.json.halted_networks).toEqual([
      {
        network: "amoy",
        chain_id: 80002,
        reason: REASON,
        block_number: "120",
        halted_at: "2026-01-01T00:00:00.000Z",
      },
    ]);

    const resumed = await resume("amoy", { reason: "node resynced; settlements checked" });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json).toMatchObject({ resumed: { network: "amoy", reason: REASON }, halted: [] });
    const [row] = await api.deps.db.db.select().from(networkHalts);
    expect(row).toMatchObject({ resumedBy: operator.id, resumeReason: "node resynced; settlements checked" });
    expect(row?.resumedAt).toBeInstanceOf(Date);
    const [event] = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "network.resumed"));
    expect(event).toMatchObject({
      actorId: operator.id,
      targetType: "network",
      targetId: "amoy",
      details: { reason: "node resynced; settlements checked" },
    });
    expect((await api.call("GET", "/readyz")).json).toMatchObject({
      status: "ready",
      indexer: { status: "ok", halted_networks: [] },
    });
  });

  it("error: a network that is not halted is 409 network_not_halted; an unknown network or bad reason is 400", async () => {
    await halt("base", 8453);
    const response = await resume("amoy", { reason: "nothing to lift" });
    expect(response.status).toBe(409);
    expect(response.json.code).toBe("network_not_halted");
    expect((await resume("mainnet", { reason: "nope nope" })).status).toBe(400);
    expect((await resume("amoy", { reason: "\r\n" })).status).toBe(400);
    expect((await resume("base", { reason: "ok", extra: 1 })).status).toBe(400);
    expect(
      await api.deps.db.db.select().from(networkHalts).where(isNull(networkHalts.resumedAt)),
    ).toHaveLength(1);
  });

  it("security: a viewer, a request without the same-origin proof or without a session cannot resume", async () => {
    await halt();
    const viewer = await signInAs(api, "viewer");
    expect((await resume("amoy", { reason: "let me" }, viewer.acting)).json.code).toBe(
      "admin_role_forbidden",
    );
    expect((await resume("amoy", { reason: "let me" }, { cookie: operator.cookie })).json.code).toBe(
      "csrf_check_failed",
    );
    expect((await resume("amoy", { reason: "let me" }, {})).status).toBe(401);
    expect(
      await api.deps.db.db.select().from(networkHalts).where(isNull(networkHalts.resumedAt)),
    ).toHaveLength(1);
  });
});
