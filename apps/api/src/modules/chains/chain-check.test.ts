import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import { AppError, type DeploymentManifest } from "@tollgate/shared";
import { freePort } from "@tollgate/shared/test-process";
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChains, startTestChains } from "../../test/chains";
import { checkChain, firstProblem } from "./chain-check";
import { createChainHealth, headBoundOf } from "./chain-health";
import { type ChainContext, type ChainSettings, createChainRegistry } from "./chain-registry";

const settings: ChainSettings = {
  rpcUrls: {},
  confirmations: {},
  localConfirmations: 1,
  rpcTimeoutMs: 2_000,
};
const STRANGER = "0x00000000000000000000000000000000DeaDBeef" as Address;

describe("chain checks against real local chains", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-chain-check-"));
  let chains: LocalChains;
  let manifest: DeploymentManifest;
  let signer: Address;
  const context = (
    network: "amoy" | "base",
    overrides: Partial<ChainSettings> = {},
    m = manifest,
  ): ChainContext => {
    const chain = createChainRegistry(m, { ...settings, ...overrides }).get(network);
    if (!chain) throw new Error(`${network} is not in the manifest`);
    return chain;
  };
  const now = () => new Date();

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy", "base"]);
    manifest = chains.manifest;
    signer = getAddress(manifest.chains.amoy?.roles.quoteSigner ?? "");
  });
  afterAll(async () => {
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("happy: the deployed chain passes every check and reports its head age", async () => {
    const check = await checkChain(context("amoy"), { signer, maxHeadAgeSeconds: undefined, now });
    expect(check.checks).toEqual({
      rpc: { status: "ok" },
      chain_id: { status: "ok" },
      code: { status: "ok" },
      signer_role: { status: "ok" },
      head: { status: "ok" },
    });
    expect(check.headAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(firstProblem(check)).toBeUndefined();
  });

  it("error: an RPC of another chain fails chain_id with one line naming both ids and the RPC origin", async () => {
    const amoyRpc = manifest.chains.amoy?.rpcUrl ?? "";
    // RPC_URL_BASE pointed at the amoy chain, with a key-like path that must not show.
    const check = await checkChain(context("base", { rpcUrls: { base: `${amoyRpc}/v2/SECRET` } }), {
      signer,
      maxHeadAgeSeconds: undefined,
      now,
    });
    expect(check.checks.chain_id).toEqual({
      status: "failed",
      reason: "eth_chainId is 80002, the manifest says 8453",
    });
    expect(check.checks.code.status).toBe("skipped");
    expect(firstProblem(check)).toBe(
      `network base: eth_chainId is 80002, the manifest says 8453 (rpc ${new URL(amoyRpc).origin})`,
    );
  });

  it("error: a manifest address without code fails the code check naming the contract", async () => {
    const amoy = manifest.chains.amoy;
    if (!amoy?.tokens.USDC) throw new Error("amoy has no USDC");
    const broken: DeploymentManifest = {
      ...manifest,
      chains: {
        amoy: { ...amoy, tokens: { ...amoy.tokens, USDC: { ...amoy.tokens.USDC, address: STRANGER } } },
      },
    };
    const check = await checkChain(context("amoy", {}, broken), {
      signer,
      maxHeadAgeSeconds: undefined,
      now,
    });
    expect(check.checks.code).toEqual({ status: "failed", reason: `no code at token USDC ${STRANGER}` });
    // The splitter itself has code, so the role is still read.
    expect(check.checks.signer_role.status).toBe("ok");
  });

  it("error: a signer without SIGNER_ROLE on chain, or no signer, fails the signer_role check", async () => {
    const without = await checkChain(context("amoy"), {
      signer: STRANGER,
      maxHeadAgeSeconds: undefined,
      now,
    });
    expect(without.checks.signer_role).toEqual({
      status: "failed",
      reason: `quote signer ${STRANGER} lacks SIGNER_ROLE on splitter v1.4 ${manifest.chains.amoy?.splitters["v1.4"]?.address}`,
    });
    const none = await checkChain(context("amoy"), { signer: undefined, maxHeadAgeSeconds: undefined, now });
    expect(none.checks.signer_role.status).toBe("failed");
  });

  it("error: a head older than the bound fails; without a bound (local chains) the age is only reported", async () => {
    // An hour after the head's own timestamp (pooled chains' clocks may run ahead of the wall clock).
    const head = await context("amoy").client.getBlock({ blockTag: "latest" });
    const later = () => new Date((Number(head.timestamp) + 3_600) * 1000);
    const stale = await checkChain(context("amoy"), { signer, maxHeadAgeSeconds: 60, now: later });
    expect(stale.checks.head.status).toBe("failed");
    expect(stale.checks.head.reason).toMatch(/^head block \d+ is \d+ s old, the bound is 60 s$/);
    expect(stale.headAgeSeconds).toBeGreaterThanOrEqual(3_600);
    const unbounded = await checkChain(context("amoy"), { signer, maxHeadAgeSeconds: undefined, now: later });
    expect(unbounded.checks.head.status).toBe("ok");
    // Local manifests are not bounded unless the operator sets a bound; real networks have defaults.
    const amoy = context("amoy");
    expect(headBoundOf(amoy, {})).toBeUndefined();
    expect(headBoundOf(amoy, { amoy: 5 })).toBe(5);
    expect(headBoundOf({ ...amoy, deployment: { ...amoy.deployment, local: false } }, {})).toBe(300);
  });

  it("error: an RPC nobody listens on fails rpc and skips the rest", async () => {
    const port = await freePort();
    const check = await checkChain(context("amoy", { rpcUrls: { amoy: `http://127.0.0.1:${port}` } }), {
      signer,
      maxHeadAgeSeconds: undefined,
      now,
    });
    expect(check.checks.rpc.status).toBe("failed");
    expect(check.checks.rpc.reason).toMatch(/^RPC unreachable: /);
    expect(check.checks.chain_id.status).toBe("skipped");
    expect(firstProblem(check)).toMatch(
      new RegExp(`^network amoy: RPC unreachable: .*\\(rpc http://127\\.0\\.0\\.1:${port}\\)$`),
    );
  });

  describe("the periodic health", () => {
    let proxy: RpcFaultProxy;
    beforeAll(async () => {
      proxy = await startRpcFaultProxy(manifest.chains.amoy?.rpcUrl ?? "");
    });
    afterAll(() => proxy?.close());

    it("marks a failing network unavailable (503 with Retry-After, one warning) and available again on recovery", async () => {
      const warnings: string[] = [];
      const infos: string[] = [];
      const health = createChainHealth({
        chains: createChainRegistry(manifest, { ...settings, rpcUrls: { amoy: proxy.url } }),
        signer,
        clock: { now },
        log: {
          warn: (_fields: unknown, line: string) => warnings.push(line),
          info: (_f: unknown, line: string) => infos.push(line),
        } as never,
        settings: { intervalMs: 2_500, headMaxAgeSeconds: {} },
      });
      const amoyOf = (states: { network: string; available: boolean }[]) =>
        states.find((state) => state.network === "amoy");
      const first = amoyOf(await health.checkAll());
      expect(first?.available).toBe(true);
      expect(() => health.assertAvailable("amoy")).not.toThrow();

      proxy.fault = () => ({ kind: "status", status: 503 });
      const down = amoyOf(await health.checkAll());
      expect(down?.available).toBe(false);
      let refusal: unknown;
      try {
        health.assertAvailable("amoy");
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(AppError);
      expect((refusal as AppError).code).toBe("chain_unavailable");
      expect((refusal as AppError).headers).toEqual({ "Retry-After": "3" });
      await health.checkAll();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^network amoy: RPC unreachable: .*; unavailable$/);
      expect(warnings[0]?.length).toBeLessThan(300);

      proxy.fault = undefined;
      const back = amoyOf(await health.checkAll());
      expect(back?.available).toBe(true);
      expect(() => health.assertAvailable("amoy")).not.toThrow();
      expect(infos).toEqual(["network amoy: available again"]);
    });
  });
});
