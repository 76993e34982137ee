/**
 * The operator pause with `onchain: true` on a real local amoy chain: the splitters' own pause() is called
 * with PAUSER_PRIVATE_KEY, after which a payment to the splitter reverts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditEvents, servicePauses } from "@tollgate/db";
import { splitterV12Abi } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOn, type LocalChains, startTestChains } from "../../test/chains";
import { startTestApi, type TestApi } from "../../test/harness";
import { randomAddress } from "../bridge/testing";
import { wellKnownDevKeys } from "../chains";
import { type SignedIn, signInAs } from "../operators/admin-testing";

describe("POST /api/admin/pause with onchain: true (real local chain)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-onchain-pause-"));
  let chains: LocalChains;
  let api: TestApi;
  let keyless: TestApi;
  let operator: SignedIn;
  let splitter: Address;
  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    const amoy = chains.manifest.chains.amoy!;
    splitter = amoy.splitters["v1.2"]!.address as Address;
    const pauserKey = wellKnownDevKeys().get(amoy.roles.pauser.toLowerCase()) as Hex;
    expect(pauserKey).toMatch(/^0x/);
    api = await startTestApi("pglite", { DATA_DIR: dataDir, PAUSER_PRIVATE_KEY: pauserKey });
    keyless = await startTestApi("pglite", { DATA_DIR: dataDir });
    operator = await signInAs(api, "operator");
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await keyless?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const payMatic = (value: bigint) => {
    const agent = agentOn(chains.chains[0]!, 14);
    return agent.client.simulateContract({
      account: agent.account,
      address: splitter,
      abi: splitterV12Abi,
      functionName: "payMatic",
      args: [randomAddress(), randomAddress(), "ord_onchainpause1"],
      value,
    });
  };

  it("error: without a pauser key it is 409 onchain_pause_unavailable and nothing is stored", async () => {
    const other = await signInAs(keyless, "operator");
    const res = await keyless.call("POST", "/api/admin/pause", {
      body: { scope: "amoy", reason: "incident 7", onchain: true },
      headers: other.acting,
    });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("onchain_pause_unavailable");
    expect(await keyless.deps.db.db.select().from(servicePauses)).toEqual([]);
  });

  it("security: a viewer cannot pause on chain; a non-boolean onchain is 400", async () => {
    const viewer = await signInAs(api, "viewer");
    const forbidden = await api.call("POST", "/api/admin/pause", {
      body: { scope: "amoy", reason: "incident 7", onchain: true },
      headers: viewer.acting,
    });
    expect(forbidden.status).toBe(403);
    const bad = await api.call("POST", "/api/admin/pause", {
      body: { scope: "amoy", reason: "incident 7", onchain: "yes" },
      headers: operator.acting,
    });
    expect(bad.status).toBe(400);
    expect(await api.deps.db.db.select().from(servicePauses)).toEqual([]);
  });

  it("happy: the splitters in scope are paused on chain, audited; a payment then reverts", async () => {
    await expect(payMatic(10n ** 15n)).resolves.toBeDefined();
    const res = await api.call("POST", "/api/admin/pause", {
      body: { scope: "amoy", reason: "incident 7", onchain: true },
      headers: operator.acting,
    });
    expect(res.status, res.text).toBe(200);
    const results = res.json.onchain as { version: string; status: string; tx_hash: string | null }[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.find((r) => r.version === "v1.2")).toMatchObject({
      status: "paused",
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(results.every((r) => r.status === "paused")).toBe(true);
    const client = agentOn(chains.chains[0]!, 14).client;
    expect(
      await client.readContract({ address: splitter, abi: splitterV12Abi, functionName: "paused" }),
    ).toBe(true);
    await expect(payMatic(10n ** 15n)).rejects.toThrow(/EnforcedPause|revert/i);
    const audited = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "service.paused.onchain"));
    expect(audited).toHaveLength(1);
    expect(audited[0]!.details).toMatchObject({ results: expect.any(Array) });
  }, 60_000);
});
