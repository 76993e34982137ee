import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { settlements } from "@tollgate/db";
import { newId } from "@tollgate/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";

const PARTNER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const OTHER_CREATOR = "0xbDA5747bFD65F08deb54cb465eB87D40e51B197E";
const M1 = "0x52908400098527886E0F7030069857D2E4169EE7";
const M2 = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";
const M3 = "0xdD2FD4581271e230360230F9337D5c0430Bf44C0";
const NATIVE = "0x0000000000000000000000000000000000000000";
const USDC = "0x5fbdb2315678afecb367f032d93f642f64180aa3";

let counter = 0;
function settlement(
  merchant: string,
  state: "seen" | "confirmed" | "final" | "orphaned",
  ip: string,
  extra = {},
) {
  counter++;
  const orderId = newId("order");
  return {
    chainId: 80002,
    network: "amoy",
    splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    splitterVersion: "v1.2" as const,
    txHash: `0x${counter.toString(16).padStart(64, "0")}`,
    logIndex: 0,
    blockNumber: 80n,
    blockHash: `0x${"2".repeat(64)}`,
    payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
    merchantAddress: merchant.toLowerCase(),
    token: NATIVE,
    totalAmount: "10000",
    merchantAmount: "9899",
    treasuryAmount: "100",
    ipCreatorAmount: ip,
    orderId,
    bridgeOrderId: orderId,
    state,
    seenAt: new Date("2026-11-20T00:00:00Z"),
    updatedAt: new Date("2026-11-20T00:00:00Z"),
    ...extra,
  };
}

const provider = (id: string, merchant: string, ipCreator?: string) => ({
  id,
  upstream_url: "http://127.0.0.1:9/api",
  price_wei: "10000",
  merchant_wallet: merchant,
  ...(ipCreator ? { ip_creator: ipCreator } : {}),
});

describe.each(storageDatabaseKinds("pglite"))("GET /api/partner/{wallet} on %s", (kind) => {
  let api: TestApi;
  let operator: SignedIn;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tollgate-partners-"));
    const file = join(dir, "providers.json");
    writeFileSync(
      file,
      JSON.stringify({
        providers: [
          provider("alpha", M1, PARTNER),
          provider("beta", M2, PARTNER),
          provider("gamma", M2, OTHER_CREATOR), // shares beta's wallet with another creator: not attributable
          provider("delta", M3), // no ip creator
        ],
      }),
    );
    api = await startTestApi(kind, { BRIDGE_PROVIDERS_FILE: file, RATE_LIMIT_PUBLIC_PER_MINUTE: "40" });
    operator = await signInAs(api, "operator");
    await api.deps.db.db.insert(settlements).values([
      // Exact sums beyond 2^53.
      settlement(M1, "confirmed", "9007199254740993"),
      settlement(M1, "final", "2"),
      settlement(M1, "final", "5", { network: "polygon", chainId: 137, token: USDC }),
      settlement(M1, "seen", "1000"), // not income yet
      settlement(M1, "orphaned", "1000"), // never income
      settlement(M1, "confirmed", "0"), // no ip-creator leg
      settlement(M1, "confirmed", "1000", { bridgeOrderId: null, orderId: "qt_notabridgeorder1234" }), // a quote
      settlement(M1, "confirmed", "1000", { splitterVersion: "v1.4" }),
      settlement(M2, "confirmed", "1000"), // ambiguous wallet
      settlement(M3, "confirmed", "1000"), // another wallet
    ]);
    const registered = await api.call("POST", "/api/admin/register-partner", {
      body: {
        wallet: PARTNER.toLowerCase(),
        name: "Acme Labs",
        contact: "secret@acme.example",
        notes: "private",
      },
      headers: operator.acting,
    });
    expect(registered.status, registered.text).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("happy: name, crediting providers and exact ip-creator income by network and asset; nothing private", async () => {
    const response = await api.call("GET", `/api/partner/${PARTNER}`);
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({
      wallet: PARTNER,
      name: "Acme Labs",
      registered_at: expect.any(String),
      providers: [
        { id: "alpha", description: "Paid access to alpha", network: "amoy", merchant_wallet: M1 },
        { id: "beta", description: "Paid access to beta", network: "amoy", merchant_wallet: M2 },
      ],
      income: [
        {
          network: "amoy",
          chain_id: 80002,
          token: NATIVE,
          asset: "native",
          settlements: 2,
          ip_creator_amount: "9007199254740995",
        },
        {
          network: "polygon",
          chain_id: 137,
          token: USDC,
          asset: null,
          settlements: 1,
          ip_creator_amount: "5",
        },
      ],
      unattributed_merchant_wallets: [M2.toLowerCase()],
    });
    expect(response.text).not.toContain("secret@acme.example");
    expect(response.text).not.toContain("private");
    // Any case of the same address finds the same partner.
    const lower = await api.call("GET", `/api/partner/${PARTNER.toLowerCase()}`);
    expect(lower.json.name).toBe("Acme Labs");
  });

  it("happy: a registered wallet no provider credits has no providers and no income", async () => {
    const wallet = "0x71bE63f3384f5fb98995898A86B02Fb2426c5788";
    await api.call("POST", "/api/admin/register-partner", {
      body: { wallet, name: "Lonely" },
      headers: operator.acting,
    });
    const response = await api.call("GET", `/api/partner/${wallet}`);
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ providers: [], income: [], unattributed_merchant_wallets: [] });
  });

  it("error: unknown wallet 404, malformed wallets 400, both problem+json", async () => {
    const unknown = await api.call("GET", `/api/partner/${OTHER_CREATOR}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
    expect(unknown.json.code).toBe("partner_not_found");
    for (const wallet of [
      "0x1234",
      "not-an-address",
      `0x${"z".repeat(40)}`,
      "0x2546bcD3c84621e976D8185a91A922aE77ECEc30", // wrong EIP-55 checksum
      "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", // Solana
      "__proto__",
      "%00",
      "0x".padEnd(200, "a"),
    ]) {
      const response = await api.call("GET", `/api/partner/${wallet}`);
      expect(response.status, wallet).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code).toBe("validation_failed");
    }
  });

  it("security: public-surface rate limit answers 429 with Retry-After", async () => {
    let last: Awaited<ReturnType<TestApi["call"]>> | undefined;
    for (let i = 0; i < 45; i++) {
      last = await api.call("GET", `/api/partner/${PARTNER}`);
      if (last.status === 429) break;
    }
    expect(last?.status).toBe(429);
    expect(last?.json.code).toBe("rate_limited");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("is in /openapi.json without a security scheme", async () => {
    const document = await api.call("GET", "/openapi.json");
    const operation = (document.json.paths as Record<string, Record<string, Record<string, unknown>>>)[
      "/api/partner/{wallet}"
    ]?.get;
    expect(operation).toBeDefined();
    expect(operation?.security).toBeUndefined();
  });
});
