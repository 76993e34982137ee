import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { createAdmin } from "../operators";
import { type LocalSolanaRpc, startLocalSolanaRpc } from "./solana-local-rpc";
import { giveSeat, testAgent } from "./testing";

const PASSWORD = "correct horse battery staple";

describe.each(storageDatabaseKinds("pglite"))("GET /api/dashboard/solana on %s", (kind) => {
  let api: TestApi;
  let rpc: LocalSolanaRpc;
  let token: string;
  beforeAll(async () => {
    rpc = await startLocalSolanaRpc();
    api = await startTestApi(kind, { SOLANA_RPC_URL: `${rpc.url}/?api-key=secret-provider-key` });
    const email = `dash-${kind}@example.com`;
    await createAdmin(
      api.deps.db.db,
      { email, password: PASSWORD, role: "viewer" },
      { now: new Date(), actor: { type: "system", id: "test" } },
    );
    const login = await api.call("POST", "/api/admin/login", {
      body: { email, password: PASSWORD, session: "bearer" },
    });
    token = String(login.json.token);
  });
  afterAll(async () => {
    await api?.close();
    await rpc?.close();
  });

  it("reports RPC health and the gate's counts to a signed-in operator, without the RPC URL's secrets", async () => {
    const agent = testAgent();
    giveSeat(rpc, agent.publicKey);
    const nonce = String((await api.call("GET", "/nonce")).json["x-nonce"]);
    expect((await api.call("GET", "/api/live-stats", { headers: agent.headers(nonce) })).status).toBe(200);
    const response = await api.call("GET", "/api/dashboard/solana", {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(response.json.rpc).toMatchObject({ configured: true, healthy: true, origin: rpc.url });
    expect(response.text).not.toContain("secret-provider-key");
    expect(response.json.gate).toMatchObject({ nonce_store: "database", verified: 1 });
    expect((response.json.gate as { nonces_issued: number }).nonces_issued).toBeGreaterThanOrEqual(1);
    expect(response.json.seat_checks).toMatchObject({ rpc_calls: 1, rpc_failures: 0 });
  });

  it("answers 401 without an operator session, and to an identity-gate signature", async () => {
    const anonymous = await api.call("GET", "/api/dashboard/solana");
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.code).toBe("admin_auth_required");
    const agent = testAgent();
    const nonce = String((await api.call("GET", "/nonce")).json["x-nonce"]);
    expect((await api.call("GET", "/api/dashboard/solana", { headers: agent.headers(nonce) })).status).toBe(
      401,
    );
  });

  it("reports an unhealthy RPC instead of failing when the RPC is down", async () => {
    await rpc.close();
    const response = await api.call("GET", "/api/dashboard/solana", {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(response.json.rpc).toMatchObject({ healthy: false, slot: null });
  });
});
