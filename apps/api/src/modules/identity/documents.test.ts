/** /manifesto.json, /idl.json, /api/protocol-docs and their OpenAPI entries (docs/identity-gate.md). */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { type LocalSolanaRpc, startLocalSolanaRpc } from "./solana-local-rpc";
import { giveSeat, testAgent } from "./testing";

describe.each(storageDatabaseKinds("pglite"))("identity documents on %s", (kind) => {
  let api: TestApi;
  let rpc: LocalSolanaRpc;
  beforeAll(async () => {
    rpc = await startLocalSolanaRpc();
    api = await startTestApi(kind, { SOLANA_RPC_URL: rpc.url });
  });
  afterAll(async () => {
    await api?.close();
    await rpc?.close();
  });

  it("serves the manifesto with version 5.3, networks, profiles, endpoints and the agreement's hash", async () => {
    const response = await api.call("GET", "/manifesto.json");
    expect(response.status).toBe(200);
    const manifesto = response.json as Record<string, unknown>;
    expect(manifesto.protocol).toBe("AIFP v5.3");
    expect(manifesto.version).toBe("5.3.0");
    const agreement = manifesto.agreement as { text: string; hash: string };
    expect(agreement.hash).toBe(createHash("sha256").update(agreement.text).digest("hex"));
    const challenge = await api.call("GET", "/api/live-stats");
    expect(challenge.json.agreement_hash).toBe(agreement.hash);
    expect((manifesto.networks as { name: string }[]).map((n) => n.name)).toEqual([
      "polygon",
      "base",
      "amoy",
      "solana",
    ]);
    expect((manifesto.economics_profiles as unknown[]).length).toBe(3);
  });

  it("serves the seat program IDL with the configured program id", async () => {
    const response = await api.call("GET", "/idl.json");
    expect(response.status).toBe(200);
    expect(response.json.address).toBe(api.deps.env.identity.solana.seatProgramId);
    expect((response.json.accounts as { name: string }[])[0]?.name).toBe("Seat");
  });

  it("derives the treasury's associated token accounts instead of hard-coding them", async () => {
    const challenge = (await api.call("GET", "/api/protocol-docs")).json;
    // Known mainnet values: the ATA of this owner for USDC is a PDA of [owner, token program, mint].
    const { PublicKey } = await import("@solana/web3.js");
    const [expected] = PublicKey.findProgramAddressSync(
      [
        new PublicKey(String(challenge.treasury_vault)).toBuffer(),
        new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA").toBuffer(),
        new PublicKey(String(challenge.usdc_mint)).toBuffer(),
      ],
      new PublicKey("ATokenGPvbdGVxr1b1hRcZkDwtQ2pdzTBgGRCoAA8VAg"),
    );
    expect(challenge.usdc_ata_treasury).toBe(expected?.toBase58());
    expect(challenge.usdt_ata_treasury).not.toBe(challenge.usdc_ata_treasury);
  });

  it("gates /api/protocol-docs: 402 without identity, 200 with a seat", async () => {
    expect((await api.call("GET", "/api/protocol-docs")).status).toBe(402);
    const agent = testAgent();
    giveSeat(rpc, agent.publicKey);
    const nonce = String((await api.call("GET", "/nonce")).json["x-nonce"]);
    const response = await api.call("GET", "/api/protocol-docs", { headers: agent.headers(nonce) });
    expect(response.status).toBe(200);
    expect(response.json.agent).toBe(agent.pubkey);
    expect((response.json.documents as { id: string }[]).map((d) => d.id)).toContain("identity-gate");
  });

  it("describes the gated endpoints in /openapi.json with the identity headers and 402/403 answers", async () => {
    const document = (await api.call("GET", "/openapi.json")).json as {
      paths: Record<
        string,
        { get?: { parameters?: { name: string }[]; responses: Record<string, unknown> } }
      >;
    };
    for (const path of ["/api/live-stats", "/api/protocol-docs"]) {
      const operation = document.paths[path]?.get;
      expect(operation?.parameters?.map((p) => p.name)).toEqual(["x-agent-pubkey", "x-nonce", "x-signature"]);
      expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["200", "402", "403"]));
    }
    for (const path of ["/nonce", "/manifesto.json", "/idl.json"])
      expect(document.paths[path]?.get).toBeDefined();
  });
});
