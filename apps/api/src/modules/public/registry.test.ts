import { SPLITTER_V14_ROUTES } from "@tollgate/shared";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { useApiOnChains } from "../../test/api-on-chains";
import { startTestApi, storageDatabaseKinds } from "../../test/harness";
import { ZRegistryCoverage, ZSplitterRegistry } from "./registry.types";

describe.each(storageDatabaseKinds("pglite"))(
  "GET /api/registry and /api/registry/coverage on %s",
  (kind) => {
    const stack = useApiOnChains(kind, { prefix: "registry", env: { RATE_LIMIT_PUBLIC_PER_MINUTE: "1000" } });

    describe("happy", () => {
      it("lists each splitter keyed by (chain id, version) with routes, profiles, allow-list and status", async () => {
        const response = await stack.api.call("GET", "/api/registry");
        expect(response.status).toBe(200);
        const registry = ZSplitterRegistry.parse(response.json);
        const deployed = stack.chains.manifest.chains.amoy!;
        expect(registry.deployments.map((d) => [d.key, d.address, d.status])).toEqual([
          ["80002:1.2", getAddress(deployed.splitters["v1.2"]!.address), "enabled"],
          ["80002:1.4", getAddress(deployed.splitters["v1.4"]!.address), "enabled"],
        ]);
        const [v12, v14] = registry.deployments;
        expect(v12!.routes.map((r) => [r.route, r.economics_profile, r.used_by])).toEqual([
          ["gen1-quote", "aifp1-gross-inclusive-100-0-v1", "quote"],
          ["legacy-bridge", "legacy-v12-fee-on-top-100-1-v1", "bridge"],
        ]);
        expect(v12!.routes[1]!.split_bps).toEqual({ merchant: 9899, treasury: 100, ip_creator: 1 });
        expect(v14!.routes.map((r) => [r.route, r.route_id, r.used_by, r.status])).toEqual([
          ["aifp1", SPLITTER_V14_ROUTES.aifp1, "quote", "enabled"],
          ["aifp2", SPLITTER_V14_ROUTES.aifp2, "none", "disabled"],
        ]);
        expect(v14!.token_allow_list).toContainEqual({
          symbol: "USDC",
          address: getAddress(deployed.tokens.USDC!.address),
          decimals: 6,
        });
        expect(v12!.token_allow_list.map((t) => t.symbol).sort()).toEqual(
          [...deployed.splitters["v1.2"]!.allowedTokens].sort(),
        );
      });

      it("the coverage matrix has quote, bridge and reserved rows for each network, version and asset", async () => {
        const coverage = ZRegistryCoverage.parse(
          (await stack.api.call("GET", "/api/registry/coverage")).json,
        );
        const row = (network: string, version: string, asset: string, profile: string) =>
          coverage.rows.find(
            (r) =>
              r.network === network &&
              r.version === version &&
              r.asset === asset &&
              r.economics_profile === profile,
          );
        expect(row("amoy", "1.4", "USDC", "aifp1-gross-inclusive-100-0-v1")).toMatchObject({
          used_by: "quote",
          status: "enabled",
          refusal: null,
        });
        expect(row("amoy", "1.2", "USDT", "legacy-v12-fee-on-top-100-1-v1")?.used_by).toBe("bridge");
        expect(row("amoy", "1.4", "POL", "aifp2-provider-preserving-0-v1")).toMatchObject({
          used_by: "none",
          status: "disabled",
        });
        expect(row("polygon", "1.2", "USDC", "aifp1-gross-inclusive-100-0-v1")).toMatchObject({
          status: "unavailable",
          refusal: { code: "chain_unavailable", status: 503 },
        });
        expect(row("base", "1.2", "POL", "aifp1-gross-inclusive-100-0-v1")?.status).not.toBe("enabled");
        expect(coverage.networks).toEqual(["polygon", "base", "amoy"]);
      });

      it("/registry and /registry/coverage are aliases: same bytes and ETag, a canonical Link", async () => {
        for (const [canonical, alias] of [
          ["/api/registry", "/registry"],
          ["/api/registry/coverage", "/registry/coverage"],
        ] as const) {
          const a = await stack.api.call("GET", canonical);
          const b = await stack.api.call("GET", alias);
          expect(b.status).toBe(200);
          expect(b.text).toBe(a.text);
          expect(b.headers.get("etag")).toBe(a.headers.get("etag"));
          expect(b.headers.get("link")).toBe(`<${canonical}>; rel="canonical"`);
          expect(a.headers.get("cache-control")).toBe("public, max-age=10");
          const cached = await stack.api.call("GET", alias, {
            headers: { "if-none-match": a.headers.get("etag")! },
          });
          expect(cached.status).toBe(304);
        }
      });
    });

    describe("error", () => {
      it("without a deployment manifest the registry is empty and every quote row names chain_unavailable", async () => {
        const bare = await startTestApi(kind, {}, { db: stack.api.deps.db });
        try {
          const registry = await bare.call("GET", "/api/registry");
          expect(registry.status).toBe(200);
          expect(ZSplitterRegistry.parse(registry.json).deployments).toEqual([]);
          const coverage = ZRegistryCoverage.parse((await bare.call("GET", "/registry/coverage")).json);
          for (const row of coverage.rows.filter((r) => r.used_by === "quote"))
            expect(row.refusal?.code).toBe("chain_unavailable");
        } finally {
          await bare.close();
        }
      });

      it("a path below the registry that does not exist is a 404 problem", async () => {
        const response = await stack.api.call("GET", "/api/registry/nothing");
        expect(response.status).toBe(404);
        expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      });
    });

    describe("security", () => {
      it("all four paths are public in /openapi.json (security none) and rate-limited", async () => {
        const document = (await stack.api.call("GET", "/openapi.json")).json as {
          paths: Record<string, Record<string, { security?: unknown[]; description?: string }>>;
        };
        for (const path of ["/api/registry", "/registry", "/api/registry/coverage", "/registry/coverage"]) {
          expect(document.paths[path]?.get?.security, path).toEqual([]);
          expect(document.paths[path]?.get?.description, path).toBeTruthy();
        }
        const limited = await startTestApi(
          kind,
          { DATA_DIR: stack.dataDir, RATE_LIMIT_PUBLIC_PER_MINUTE: "1" },
          { db: stack.api.deps.db },
        );
        try {
          expect((await limited.call("GET", "/registry")).status).toBe(200);
          const refused = await limited.call("GET", "/api/registry/coverage");
          expect(refused.status).toBe(429);
          expect(refused.json.code).toBe("rate_limited");
        } finally {
          await limited.close();
        }
      });

      it("publishes no RPC URL, key or mnemonic", async () => {
        for (const path of ["/api/registry", "/api/registry/coverage"]) {
          const { text } = await stack.api.call("GET", path);
          expect(text).not.toContain("127.0.0.1");
          expect(text).not.toContain("mnemonic");
          expect(text).not.toMatch(/private/i);
        }
      });
    });
  },
);
