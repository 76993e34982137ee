import { networkHalts } from "@tollgate/db";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { useApiOnChains } from "../../test/api-on-chains";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { operatorBearer } from "../operators/testing";
import { ZPaymentCapabilities } from "./payment-capabilities.types";

type Capabilities = ReturnType<typeof ZPaymentCapabilities.parse>;

describe.each(storageDatabaseKinds("pglite"))("GET /api/payment-capabilities on %s", (kind) => {
  const stack = useApiOnChains(kind, { prefix: "caps", env: { RATE_LIMIT_PUBLIC_PER_MINUTE: "1000" } });

  const read = async (on: TestApi = stack.api, headers: Record<string, string> = {}) => {
    const response = await on.call("GET", "/api/payment-capabilities", { headers });
    return { ...response, capabilities: ZPaymentCapabilities.parse(response.json) as Capabilities };
  };
  const chainOf = (capabilities: Capabilities, network: string) =>
    capabilities.chains.find((chain) => chain.network === network)!;

  describe("happy", () => {
    it("lists polygon, base, amoy and solana with ids, assets from the manifest and splitters with readiness", async () => {
      const { status, capabilities, headers } = await read();
      expect(status).toBe(200);
      expect(headers.get("content-type")).toMatch(/^application\/json/);
      expect(capabilities.contract).toBe("payment-capabilities-v1");
      expect(capabilities.chains.map((chain) => [chain.network, chain.chain_id, chain.caip2])).toEqual([
        ["polygon", 137, "eip155:137"],
        ["base", 8453, "eip155:8453"],
        ["amoy", 80002, "eip155:80002"],
        ["solana", null, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"],
      ]);
      const amoy = chainOf(capabilities, "amoy");
      const deployed = stack.chains.manifest.chains.amoy!;
      expect(amoy).toMatchObject({ status: "enabled", mode: "test", configured: true, pause: null });
      expect(amoy.assets).toEqual([
        { symbol: "POL", native: true, address: null, decimals: 18, status: "enabled" },
        {
          symbol: "USDC",
          native: false,
          address: getAddress(deployed.tokens.USDC!.address),
          decimals: 6,
          status: "enabled",
        },
      ]);
      expect(amoy.settlement_versions.map((v) => [v.version, v.splitter, v.status])).toEqual([
        ["1.2", getAddress(deployed.splitters["v1.2"]!.address), "enabled"],
        ["1.4", getAddress(deployed.splitters["v1.4"]!.address), "enabled"],
      ]);
      expect(amoy.coverage.payment.supported).toBe(true);
      expect(amoy.coverage.history).toMatchObject({
        supported: true,
        via: "/v1/agents/{address}/transactions",
      });
    });

    it("networks without a deployment are unavailable with the quote's refusal; Solana is disabled, informational", async () => {
      const { capabilities } = await read();
      const polygon = chainOf(capabilities, "polygon");
      expect(polygon).toMatchObject({ status: "unavailable", configured: false });
      for (const version of polygon.settlement_versions)
        for (const asset of version.assets)
          expect(asset.refusal).toMatchObject({ code: "chain_unavailable", status: 503 });
      expect(chainOf(capabilities, "base").assets.map((asset) => asset.symbol)).toEqual(["USDC"]);
      const solana = chainOf(capabilities, "solana");
      expect(solana).toMatchObject({ status: "disabled", informational: true, settlement_versions: [] });
      expect(solana.coverage.payment.supported).toBe(false);
      expect(solana.assets.every((asset) => asset.status === "disabled")).toBe(true);
    });

    it("is cacheable: Cache-Control, a stable ETag and 304 for If-None-Match", async () => {
      const first = await read();
      expect(first.headers.get("cache-control")).toBe("public, max-age=10");
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect((await read()).headers.get("etag")).toBe(etag);
      const again = await stack.api.call("GET", "/api/payment-capabilities", {
        headers: { "if-none-match": etag },
      });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
    });

    it("shows an operator pause at once and the network as payable again after unpause", async () => {
      const operator = { ...(await operatorBearer(stack.api, "operator")), "x-tollgate-csrf": "1" };
      await read(); // cached while open
      const paused = await stack.api.call("POST", "/api/admin/pause", {
        headers: operator,
        body: { scope: "amoy", reason: "maintenance" },
      });
      expect(paused.status, paused.text).toBe(200);
      const amoy = chainOf((await read()).capabilities, "amoy");
      expect(amoy.status).toBe("paused");
      expect(amoy.pause?.reason).toBe("maintenance");
      expect(amoy.coverage.payment.supported).toBe(false);
      expect(amoy.settlement_versions[0]!.assets[0]!.refusal).toMatchObject({
        code: "service_paused",
        status: 503,
      });
      await stack.api.call("POST", "/api/admin/unpause", {
        headers: operator,
        body: { scope: "amoy", reason: "done" },
      });
      expect(chainOf((await read()).capabilities, "amoy").status).toBe("enabled");
    });

    it("a network the indexer halted carries the halt (also in /readyz), and its history is not claimed while halted", async () => {
      const db = stack.api.deps.db.db;
      await db.insert(networkHalts).values({
        chainId: 80002,
        network: "amoy",
        reason: "reorg on chain 80002 at indexed block 120 not repaired",
        blockNumber: 120n,
        haltedAt: new Date("2026-01-01T00:00:00Z"),
      });
      // A process started now (the snapshot of the shared one may be cached for its lifetime).
      const fresh = await startTestApi(kind, { DATA_DIR: stack.dataDir }, { db: stack.api.deps.db });
      try {
        const amoy = chainOf((await read(fresh)).capabilities, "amoy");
        expect(amoy.halt).toEqual({
          reason: "reorg on chain 80002 at indexed block 120 not repaired",
          halted_at: "2026-01-01T00:00:00.000Z",
          block_number: "120",
        });
        expect(amoy.coverage.history.supported).toBe(false);
        expect(amoy.coverage.history.note).toContain("halted since 2026-01-01T00:00:00.000Z (at block 120)");
        expect(chainOf((await read(fresh)).capabilities, "base").halt).toBeNull();
        // /readyz names it on the network's own entry too (the chain itself is fine: the answer is 200).
        const ready = await fresh.call("GET", "/readyz");
        expect(ready.json).toMatchObject({
          status: "degraded",
          networks: { amoy: { status: "ok", halted: true } },
          indexer: { halted_networks: ["amoy"] },
        });
      } finally {
        await fresh.close();
        await db.delete(networkHalts);
      }
    });
  });

  describe("error", () => {
    it("an unreachable RPC makes the network unavailable (chain_unavailable), never a 5xx", async () => {
      const down = await startTestApi(
        kind,
        { DATA_DIR: stack.dataDir, RPC_URL_AMOY: "http://127.0.0.1:9", RPC_TIMEOUT_MS: "500" },
        { db: stack.api.deps.db },
      );
      try {
        const { status, capabilities } = await read(down);
        expect(status).toBe(200);
        const amoy = chainOf(capabilities, "amoy");
        expect(amoy.status).toBe("unavailable");
        expect(amoy.settlement_versions[0]!.refusal).toMatchObject({
          code: "chain_unavailable",
          status: 503,
        });
      } finally {
        await down.close();
      }
    });

    it("another method is refused with a 4xx problem, not served", async () => {
      const posted = await stack.api.call("POST", "/api/payment-capabilities", { body: {} });
      expect(posted.status).toBeGreaterThanOrEqual(400);
      expect(posted.status).toBeLessThan(500);
      expect(posted.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    });
  });

  describe("security", () => {
    it("is public: credentials change nothing, and no RPC URL or key is published", async () => {
      const anonymous = await read();
      const withJunk = await read(stack.api, {
        authorization: "Bearer msec_nothing",
        cookie: "tollgate_admin=x",
      });
      expect(withJunk.status).toBe(200);
      expect(withJunk.headers.get("etag")).toBe(anonymous.headers.get("etag"));
      expect(anonymous.text).not.toContain("127.0.0.1");
      expect(anonymous.text).not.toMatch(/rpc_?url/i);
      expect(anonymous.text).not.toContain("mnemonic");
    });

    it("is rate-limited by the public-surface limiter (429 problem with Retry-After)", async () => {
      const limited = await startTestApi(
        kind,
        { DATA_DIR: stack.dataDir, RATE_LIMIT_PUBLIC_PER_MINUTE: "2" },
        { db: stack.api.deps.db },
      );
      try {
        expect((await limited.call("GET", "/api/payment-capabilities")).status).toBe(200);
        expect((await limited.call("GET", "/api/payment-capabilities")).status).toBe(200);
        const refused = await limited.call("GET", "/api/payment-capabilities");
        expect(refused.status).toBe(429);
        expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(refused.json.code).toBe("rate_limited");
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      } finally {
        await limited.close();
      }
    });

    it("is in /openapi.json without security and with its description", async () => {
      const document = (await stack.api.call("GET", "/openapi.json")).json as {
        paths: Record<string, Record<string, { security?: unknown[]; description?: string }>>;
      };
      const operation = document.paths["/api/payment-capabilities"]!.get!;
      expect(operation.security).toEqual([]);
      expect(operation.description).toContain("disabled");
    });
  });
});
