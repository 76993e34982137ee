import { describe, expect, it } from "vitest";
import { useApiOnChains } from "../../test/api-on-chains";
import { startTestApi, storageDatabaseKinds } from "../../test/harness";
import { operatorBearer } from "../operators/testing";

type Step = { step: number; method: string; path: string; what: string };
type Onboarding = {
  contract: string;
  needs: { item: string; required: boolean }[];
  payable: {
    network: string;
    chain_id: number;
    assets: { symbol: string; address: string | null; decimals: number; settlement_versions: string[] }[];
  }[];
  not_payable: { network: string; status: string }[];
  flows: Record<"pay_per_call" | "identity_gate" | "user_sign_in", Step[]>;
  documents: Record<string, string>;
};

describe.each(storageDatabaseKinds("pglite"))("GET /api/agents/register on %s", (kind) => {
  const stack = useApiOnChains(kind, { prefix: "onboard", env: { RATE_LIMIT_PUBLIC_PER_MINUTE: "1000" } });

  const read = async () => {
    const response = await stack.api.call("GET", "/api/agents/register");
    return { ...response, doc: response.json as unknown as Onboarding };
  };

  describe("happy", () => {
    it("says what an agent needs and what it can pay with, from the capabilities", async () => {
      const { status, doc, headers } = await read();
      expect(status).toBe(200);
      expect(headers.get("cache-control")).toBe("public, max-age=10");
      expect(doc.contract).toBe("agent-onboarding-v1");
      expect(doc.needs.map((need) => [need.item, need.required])).toEqual([
        ["evm_payer_key", true],
        ["ed25519_key", false],
        ["solana_seat", false],
      ]);
      const capabilities = (await stack.api.call("GET", "/api/payment-capabilities")).json as {
        chains: { network: string; status: string; assets: { symbol: string; status: string }[] }[];
      };
      const enabled = capabilities.chains
        .filter((chain) => chain.status === "enabled")
        .map((chain) => [
          chain.network,
          chain.assets.filter((a) => a.status === "enabled").map((a) => a.symbol),
        ]);
      expect(doc.payable.map((chain) => [chain.network, chain.assets.map((a) => a.symbol)])).toEqual(enabled);
      expect(doc.payable).toEqual([
        expect.objectContaining({
          network: "amoy",
          chain_id: 80002,
          assets: [
            expect.objectContaining({ symbol: "POL", address: null, settlement_versions: ["1.2", "1.4"] }),
            expect.objectContaining({
              symbol: "USDC",
              address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
              decimals: 6,
            }),
          ],
        }),
      ]);
      expect(doc.not_payable).toContainEqual({ network: "solana", status: "disabled" });
    });

    it("gives the endpoints in order: quote → pay → call, the identity gate, and user sign-in", async () => {
      const { doc } = await read();
      const paths = (flow: Step[]) => flow.map((step) => `${step.method} ${step.path}`);
      expect(doc.flows.pay_per_call.map((step) => step.step)).toEqual([1, 2, 3, 4, 5]);
      expect(paths(doc.flows.pay_per_call)).toEqual([
        "GET <merchant resource>",
        "POST /v1/quote",
        "SEND settlement_call",
        "POST /v1/pay",
        "GET <merchant resource>",
      ]);
      expect(paths(doc.flows.identity_gate)[0]).toBe("GET /nonce");
      expect(paths(doc.flows.user_sign_in)).toEqual([
        "POST /api/user/nonce",
        "SIGN wallet",
        "POST /api/user/login",
        "GET /api/user/me",
        "GET /api/agent/{address}/public-usage",
        "POST /api/user/logout",
      ]);
      expect(doc.flows.user_sign_in[1]!.what).toMatch(/EIP-4361[\s\S]*Ed25519/);
      expect(doc.documents).toMatchObject({
        payment_capabilities: "/api/payment-capabilities",
        registry: "/api/registry",
        openapi: "/openapi.json",
      });
    });

    it("every document and step path it names on this service answers (no dead links)", async () => {
      const { doc } = await read();
      for (const path of Object.values(doc.documents)) {
        if (path.includes("{")) continue;
        const response = await stack.api.call("GET", path);
        expect(response.status, path).toBe(200);
      }
      expect((await stack.api.call("GET", doc.flows.identity_gate[0]!.path)).status).toBe(200);
    });
  });

  describe("error", () => {
    it("a paused network leaves the payable list (it never names a route a quote refuses)", async () => {
      const operator = { ...(await operatorBearer(stack.api, "operator")), "x-tollgate-csrf": "1" };
      await stack.api.call("POST", "/api/admin/pause", {
        headers: operator,
        body: { scope: "all", reason: "drill" },
      });
      try {
        const { doc } = await read();
        expect(doc.payable).toEqual([]);
        expect(doc.not_payable).toContainEqual({ network: "amoy", status: "paused" });
      } finally {
        await stack.api.call("POST", "/api/admin/unpause", {
          headers: operator,
          body: { scope: "all", reason: "end" },
        });
      }
      expect((await read()).doc.payable.map((chain) => chain.network)).toEqual(["amoy"]);
    });
  });

  describe("security", () => {
    it("is public in /openapi.json (security none), cacheable with ETag/304 and rate-limited", async () => {
      const document = (await stack.api.call("GET", "/openapi.json")).json as {
        paths: Record<string, Record<string, { security?: unknown[] }>>;
      };
      expect(document.paths["/api/agents/register"]?.get?.security).toEqual([]);
      const first = await read();
      const cached = await stack.api.call("GET", "/api/agents/register", {
        headers: { "if-none-match": first.headers.get("etag")! },
      });
      expect(cached.status).toBe(304);
      const limited = await startTestApi(
        kind,
        { DATA_DIR: stack.dataDir, RATE_LIMIT_PUBLIC_PER_MINUTE: "1" },
        { db: stack.api.deps.db },
      );
      try {
        expect((await limited.call("GET", "/api/agents/register")).status).toBe(200);
        expect((await limited.call("GET", "/api/agents/register")).json.code).toBe("rate_limited");
      } finally {
        await limited.close();
      }
    });

    it("publishes no RPC URL, private key or mnemonic", async () => {
      const { text } = await read();
      expect(text).not.toContain("mnemonic");
      expect(text).not.toMatch(/private_?key/i);
      expect(text).not.toContain(":8545");
    });
  });
});
