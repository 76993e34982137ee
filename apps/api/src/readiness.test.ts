// The real API process against real local chains: production refuses to start with one line when a network does
// not match its manifest, and /readyz follows an RPC that stops and comes back (docs/operations.md "Readiness").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RpcFaultProxy, startRpcFaultProxy } from "@tollgate/contracts/rpc-fault-proxy";
import type { DeploymentManifest } from "@tollgate/shared";
import { freePort, spawnTsx } from "@tollgate/shared/test-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wellKnownDevKeys } from "./modules/chains";
import type { Readyz } from "./modules/metrics/readyz.types";
import { ensureReceiptKeyFile } from "./modules/receipts";
import { startApiProcess } from "./test/api-process";
import { type LocalChains, startTestChains } from "./test/chains";

const STRANGER = "0x00000000000000000000000000000000DeaDBeef";

describe("chain checks of the API process", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-readiness-"));
  let chains: LocalChains;
  let manifest: DeploymentManifest;
  let signerKey: string;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    manifest = JSON.parse(readFileSync(join(dataDir, "deployments.json"), "utf8")) as DeploymentManifest;
    signerKey = wellKnownDevKeys().get(manifest.chains.amoy?.roles.quoteSigner.toLowerCase() ?? "") ?? "";
    await ensureReceiptKeyFile(join(dataDir, "keys", "receipt-keys.json"), new Date());
  }, 120_000);
  afterAll(async () => {
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the API in production over `changed` (a copy of the manifest) and resolves with its exit and output. */
  async function productionStart(changed: DeploymentManifest, env: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-readiness-prod-"));
    const manifestPath = join(dir, "deployments.json");
    writeFileSync(manifestPath, JSON.stringify(changed));
    const run = spawnTsx(join(import.meta.dirname, ".."), "src/main.ts", {
      NODE_ENV: "production",
      PORT: String(await freePort()),
      DATA_DIR: dir,
      DEPLOYMENT_MANIFEST: manifestPath,
      RECEIPT_KEYS_FILE: join(dataDir, "keys", "receipt-keys.json"),
      WEBHOOK_SECRET_KEY: "a".repeat(64),
      QUOTE_SIGNER_PRIVATE_KEY: signerKey,
      SERVE_CONSOLE: "false",
      LOG_LEVEL: "warn",
      ...env,
    });
    const code = await run.exited;
    rmSync(dir, { recursive: true, force: true });
    return { code, lines: run.output().trim().split("\n") };
  }
  const amoy = () => {
    const chain = manifest.chains.amoy;
    if (!chain) throw new Error("no amoy in the manifest");
    return chain;
  };
  const rpcOrigin = () => new URL(amoy().rpcUrl).origin;

  it("error: production refuses an RPC of another chain with one line and exit code 1", async () => {
    // The amoy chain's RPC listed as base's (RPC_URL_BASE pointed at amoy).
    const { code, lines } = await productionStart({
      ...manifest,
      chains: { base: { ...amoy(), network: "base", chainId: 8453 } },
    });
    expect(code).toBe(1);
    expect(lines).toEqual([
      `refusing to start: network base: eth_chainId is 80002, the manifest says 8453 (rpc ${rpcOrigin()})`,
    ]);
  }, 120_000);

  it("error: production refuses a manifest address without code", async () => {
    const chain = amoy();
    const { code, lines } = await productionStart({
      ...manifest,
      chains: {
        amoy: { ...chain, tokens: { ...chain.tokens, USDC: { ...chain.tokens.USDC!, address: STRANGER } } },
      },
    });
    expect(code).toBe(1);
    expect(lines).toEqual([
      `refusing to start: network amoy: no code at token USDC ${STRANGER} (rpc ${rpcOrigin()})`,
    ]);
  }, 120_000);

  it("error: production refuses a quote signer without SIGNER_ROLE on chain (whatever the manifest lists)", async () => {
    // Hardhat account #9 holds no role; the manifest claims it does.
    const other = [...wellKnownDevKeys().entries()][9];
    if (!other) throw new Error("no account #9");
    const chain = amoy();
    const v14 = chain.splitters["v1.4"];
    if (!v14) throw new Error("no v1.4 splitter");
    const { code, lines } = await productionStart(
      {
        ...manifest,
        chains: {
          amoy: { ...chain, splitters: { ...chain.splitters, "v1.4": { ...v14, signers: [other[0]] } } },
        },
      },
      { QUOTE_SIGNER_PRIVATE_KEY: other[1] },
    );
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.toLowerCase()).toBe(
      `refusing to start: network amoy: quote signer ${other[0]} lacks signer_role on splitter v1.4 ${v14.address} (rpc ${rpcOrigin()})`.toLowerCase(),
    );
  }, 120_000);

  describe("/readyz over an RPC that stops and comes back", () => {
    let proxy: RpcFaultProxy;
    let api: Awaited<ReturnType<typeof startApiProcess>> | undefined;
    beforeAll(async () => {
      proxy = await startRpcFaultProxy(amoy().rpcUrl);
      api = await startApiProcess(await freePort(), {
        DATA_DIR: dataDir,
        RPC_URL_AMOY: proxy.url,
        CHAIN_CHECK_INTERVAL_MS: "200",
        RPC_TIMEOUT_MS: "1000",
      });
    }, 180_000);
    afterAll(async () => {
      await api?.kill("SIGTERM");
      await proxy?.close();
    });
    const readyz = async (query = "") => {
      const response = await fetch(`${api?.baseUrl}/readyz${query}`);
      return { status: response.status, body: (await response.json()) as Readyz };
    };
    /** Polls until `check` holds (the periodic check runs every 200 ms); no timing is asserted. */
    const until = async (check: (r: Awaited<ReturnType<typeof readyz>>) => boolean) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const result = await readyz();
        if (check(result) || Date.now() > deadline) return result;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    it("503 with the network's reason while the RPC is down, 200 again once it answers", async () => {
      const up = await until((r) => r.status === 200);
      expect(up.body).toMatchObject({
        status: "ready",
        networks: { amoy: { status: "ok", chain_id: 80002 } },
      });

      proxy.fault = () => ({ kind: "status", status: 503 });
      const down = await until((r) => r.status === 503);
      expect(down.status).toBe(503);
      expect(down.body.status).toBe("not_ready");
      expect(down.body.networks.amoy?.status).toBe("down");
      // The fault may start between two reads of one check: either way the reason names the RPC.
      expect(down.body.networks.amoy?.reason).toMatch(
        /^network amoy: RPC (unreachable|failed during the checks): .*\(rpc http:\/\/127\.0\.0\.1:\d+\)$/,
      );
      expect(down.body.networks.amoy?.checks.rpc.status).toBe("failed");
      expect(down.body.database.status).toBe("ok");
      // A load balancer's probe: the network is shared by every replica, so this replica stays in, degraded.
      const probe = await readyz("?scope=replica");
      expect(probe.status).toBe(200);
      expect(probe.body.status).toBe("degraded");
      expect(probe.body.networks.amoy?.status).toBe("down");
      const bad = await fetch(`${api?.baseUrl}/readyz?scope=everything`);
      expect(bad.status).toBe(400);
      expect(bad.headers.get("content-type")).toMatch(/^application\/problem\+json/);

      proxy.fault = undefined;
      const back = await until((r) => r.status === 200);
      expect(back.status).toBe(200);
      expect(back.body.networks.amoy).toMatchObject({ status: "ok" });
      expect(back.body.networks.amoy).not.toHaveProperty("reason");
    }, 150_000);
  });
});
