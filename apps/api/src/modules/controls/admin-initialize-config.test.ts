import { auditEvents, networkConfigs } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { offlineChainRegistry } from "../bridge/testing";
import type { ChainContext, ChainRegistry } from "../chains";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { configDrift } from "./network-config-service";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** The same registry with one network's deployment changed (a redeployed treasury or splitter). */
function changed(registry: ChainRegistry, change: (chain: ChainContext) => ChainContext): ChainRegistry {
  const chains = registry.all().map(change);
  return {
    networks: registry.networks,
    get: (network) => chains.find((chain) => chain.network === network),
    byChainId: (id) => chains.find((chain) => chain.chainId === id),
    all: () => chains,
  };
}

describe.each(storageDatabaseKinds("pglite"))("POST /api/admin/initialize-config on %s", (kind) => {
  let api: TestApi;
  let operator: SignedIn;
  const chains = offlineChainRegistry(); // amoy, splitter v1.2 only, RPC nobody listens on
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { chains });
    operator = await signInAs(api, "operator");
  });
  afterAll(async () => {
    await api?.close();
  });
  const initialize = (body: unknown, headers = operator.acting) =>
    api.call("POST", "/api/admin/initialize-config", { body, headers });

  it("security: viewers and requests without the same-origin proof cannot record, nothing stored", async () => {
    const viewer = await signInAs(api, "viewer");
    expect((await initialize({}, viewer.acting)).json.code).toBe("admin_role_forbidden");
    expect((await initialize({}, { cookie: operator.cookie })).json.code).toBe("csrf_check_failed");
    expect((await initialize({}, {})).status).toBe(401);
    expect(await api.deps.db.db.select().from(networkConfigs)).toEqual([]);
  });

  it("error: unknown or undeployed networks and bad bodies are 4xx, nothing stored", async () => {
    const undeployed = await initialize({ networks: ["polygon"] });
    expect(undeployed.status).toBe(404);
    expect(undeployed.json.code).toBe("network_not_configured");
    for (const body of [{ networks: [] }, { networks: ["mars"] }, { networks: ["amoy", "amoy"] }, { x: 1 }]) {
      const response = await initialize(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
    expect(await api.deps.db.db.select().from(networkConfigs)).toEqual([]);
  });

  it("happy: records the manifest's configuration once (audited); a second call is 409 and changes nothing", async () => {
    const first = await initialize({});
    expect(first.status, first.text).toBe(200);
    expect(first.json.configs).toEqual([
      expect.objectContaining({
        network: "amoy",
        chain_id: 80002,
        treasury: address(2),
        splitters: { "v1.2": address(0x12) },
        confirmations: chains.get("amoy")!.confirmations,
        initialized_by: operator.id,
      }),
    ]);
    const second = await initialize({ networks: ["amoy"] });
    expect(second.status).toBe(409);
    expect(second.json.code).toBe("config_already_initialized");
    const rows = await api.deps.db.db.select().from(networkConfigs);
    expect(rows).toHaveLength(1);
    const audit = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "config.initialized"));
    expect(audit.map((row) => [row.actorId, row.targetId])).toEqual([[operator.id, "amoy"]]);
  });

  it("configDrift: reports an unreachable chain, and a changed manifest as drift against the record", async () => {
    const [same] = await configDrift(api.deps);
    expect(same).toMatchObject({ network: "amoy", initialized: true, drift: [] });
    expect(same!.chain.reachable).toBe(false);
    const redeployed = changed(chains, (chain) => ({
      ...chain,
      confirmations: chain.confirmations + 2,
      deployment: {
        ...chain.deployment,
        roles: { ...chain.deployment.roles, treasury: address(7) },
        splitters: { "v1.2": { ...chain.deployment.splitters["v1.2"]!, address: address(0x13) } },
      },
    }));
    const [drifted] = await configDrift({ db: api.deps.db, chains: redeployed });
    expect(drifted!.drift).toEqual([
      { field: "treasury", expected: address(2), actual: address(7) },
      {
        field: "confirmations",
        expected: chains.get("amoy")!.confirmations,
        actual: chains.get("amoy")!.confirmations + 2,
      },
      { field: "splitters.v1.2", expected: address(0x12), actual: address(0x13) },
    ]);
    // A recorded network whose deployment left the manifest is drift too.
    const [gone] = await configDrift({ db: api.deps.db, chains: offlineChainRegistry({ deployed: false }) });
    expect(gone).toMatchObject({
      network: "amoy",
      initialized: true,
      drift: [{ field: "deployment", expected: "present", actual: null }],
    });
  });
});
