import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NETWORKS, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import {
  BatchSettlementEvmScheme as BatchClient,
  InMemoryClientChannelStorage,
} from "@x402/evm/batch-settlement/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { type Address, erc20Abi, type Hex, maxUint256, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentOn, type LocalChains, startTestChains } from "../../test/chains";
import { bearer, startTestApi, type TestApi } from "../../test/harness";
import { wellKnownDevKeys } from "../chains";
import { ManualClock } from "../identity/testing";
import { type SignedIn, signInAs } from "../operators/admin-testing";
import { registerMerchant } from "../operators/testing";
import { startTestUpstream, type TestUpstream } from "./testing";
import { BALANCE_CACHE_MS } from "./x402-monitor";

interface Dashboard {
  bridge_mounted: boolean;
  bridges: {
    network: string;
    relayer: {
      address: string;
      balance_wei: string | null;
      low_balance: boolean;
      error: string | null;
    } | null;
    verifies: Record<string, number>;
    settles: Record<string, number>;
    upto: { verifies: Record<string, number>; settles: Record<string, number> };
    batch_settlement: { vouchers: Record<string, number>; claims: Record<string, number> };
    refusal_reasons: Record<string, number>;
    settles_in_flight: number;
  }[];
  warnings: string[];
}

describe("GET /api/dashboard/x402 (real local chain, bridge mounted in the API)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-x402-dashboard-"));
  const clock = new ManualClock(new Date());
  let chains: LocalChains;
  let api: TestApi;
  let low: TestApi;
  let bare: TestApi;
  let viewer: SignedIn;
  let upstream: TestUpstream;
  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    upstream = await startTestUpstream();
    const providers = join(dataDir, "providers.json");
    writeFileSync(
      providers,
      JSON.stringify({
        providers: [
          {
            id: "acme",
            upstream_url: "http://127.0.0.1:9/api",
            auth_style: "x-api-key",
            api_key: "upstream-secret",
            price_wei: "1000",
            merchant_wallet: "0x52908400098527886e0f7030069857d2e4169ee7",
          },
          {
            id: "shop",
            upstream_url: `${upstream.url}/api`,
            price_usdc_units: "100000",
            merchant_wallet: "0x52908400098527886e0f7030069857d2e4169ee7",
          },
        ],
      }),
    );
    const env = { DATA_DIR: dataDir, BRIDGE_PROVIDERS_FILE: providers, CONFIRMATIONS_AMOY: "1" };
    api = await startTestApi("pglite", env, { clock });
    // 10^30 wei: more than any development account holds, so the relayer is low.
    low = await startTestApi("pglite", { ...env, RELAYER_LOW_BALANCE_WEI: (10n ** 30n).toString() });
    bare = await startTestApi("pglite");
    viewer = await signInAs(api, "viewer");
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await low?.close();
    await bare?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const read = async (on: TestApi, signedIn?: SignedIn) => {
    const who = signedIn ?? (on === api ? viewer : await signInAs(on, "viewer"));
    const response = await on.call("GET", "/api/dashboard/x402", { headers: { cookie: who.cookie } });
    expect(response.status, response.text).toBe(200);
    return response.json as unknown as Dashboard;
  };

  it("happy: the relayer's balance from the chain, cached by the injected clock; counts start at zero", async () => {
    const first = await read(api);
    expect(first.bridge_mounted).toBe(true);
    const [bridge] = first.bridges;
    expect(bridge).toMatchObject({
      network: "amoy",
      verifies: { valid: 0, invalid: 0, errors: 0 },
      settles: { succeeded: 0, failed: 0, errors: 0 },
      upto: {
        verifies: { valid: 0, invalid: 0, errors: 0 },
        settles: { succeeded: 0, failed: 0, errors: 0 },
      },
      batch_settlement: {
        vouchers: { accepted: 0, refused: 0, failed: 0 },
        claims: { confirmed: 0, failed: 0 },
      },
      settles_in_flight: 0,
    });
    const relayer = bridge!.relayer!;
    const agent = agentOn(chains.chains[0]!, 12);
    const onChain = await agent.client.getBalance({ address: relayer.address as `0x${string}` });
    expect(relayer).toMatchObject({ balance_wei: onChain.toString(), low_balance: false, error: null });
    expect(first.warnings).toEqual([]);

    // Top up the relayer: the cached balance stands until the window has passed.
    const hash = await agent.wallet.sendTransaction({
      account: agent.account,
      chain: agent.wallet.chain ?? null,
      to: relayer.address as `0x${string}`,
      value: parseEther("1"),
    });
    await agent.client.waitForTransactionReceipt({ hash });
    clock.advance(BALANCE_CACHE_MS - 1);
    expect((await read(api)).bridges[0]!.relayer!.balance_wei).toBe(onChain.toString());
    clock.advance(1);
    expect((await read(api)).bridges[0]!.relayer!.balance_wei).toBe((onChain + parseEther("1")).toString());
  });

  it("counts upto and batch-settlement per scheme: paid calls, a refused voucher, a claim", async () => {
    const chain = chains.chains[0]!;
    const usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
    const payer = agentOn(chain, 13);
    const account = privateKeyToAccount(wellKnownDevKeys().get(payer.address.toLowerCase()) as Hex);
    const approve = await payer.wallet.writeContract({
      account: payer.account,
      chain: payer.wallet.chain,
      address: usdc,
      abi: erc20Abi,
      functionName: "approve",
      args: [X402_CANONICAL_ADDRESSES.permit2, maxUint256],
    });
    await payer.client.waitForTransactionReceipt({ hash: approve });
    const signer = toClientEvmSigner(account, payer.client);
    const allowed = {
      allowedAssets: [{ network: NETWORKS.amoy.caip2, asset: usdc, maxAmountPerPayment: "1000000" }],
    };
    const uptoClient = new x402Client().register("eip155:*", new UptoEvmScheme(signer));
    uptoClient.setSpendControls(allowed);
    const upto = wrapFetchWithPayment(fetch, uptoClient);
    for (const metered of ["35017", "0"])
      expect((await upto(`${api.baseUrl}/bridge/shop/search?metered=${metered}`)).status).toBe(200);

    const batchClient = new x402Client().register(
      NETWORKS.amoy.caip2 as `${string}:${string}`,
      new BatchClient(signer, {
        storage: new InMemoryClientChannelStorage(),
        depositStrategy: () => "1000000",
      }),
    );
    batchClient.setSpendControls(allowed);
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const header = request.headers.get("PAYMENT-SIGNATURE");
      if (header) sent.push(header);
      return fetch(request);
    };
    const batch = wrapFetchWithPayment(recording, batchClient);
    for (let i = 0; i < 2; i++)
      expect((await batch(`${api.baseUrl}/bridge/shop/search?i=${i}`)).status).toBe(200);
    // The last voucher again: its cumulative base is stale, refused at verify.
    const replay = await fetch(`${api.baseUrl}/bridge/shop/search?i=1`, {
      headers: { "PAYMENT-SIGNATURE": sent.at(-1)! },
    });
    expect(replay.status).toBe(402);
    await api.bridge!.runClaims();

    const [bridge] = (await read(api)).bridges;
    expect(bridge).toMatchObject({
      // Nothing was paid with `exact`.
      verifies: { valid: 0, invalid: 0, errors: 0 },
      settles: { succeeded: 0, failed: 0, errors: 0 },
      // Two verified, one settled: the call metered at 0 moved nothing.
      upto: {
        verifies: { valid: 2, invalid: 0, errors: 0 },
        settles: { succeeded: 1, failed: 0, errors: 0 },
      },
      batch_settlement: {
        vouchers: { accepted: 2, refused: 1, failed: 0 },
        claims: { confirmed: 1, failed: 0 },
      },
      settles_in_flight: 0,
    });
    expect(bridge!.refusal_reasons).toEqual({ invalid_batch_settlement_evm_cumulative_amount_mismatch: 1 });
  }, 120_000);

  it("warns below the configured threshold; without a bridge in the process, says so", async () => {
    const flagged = await read(low);
    expect(flagged.bridges[0]!.relayer!.low_balance).toBe(true);
    expect(flagged.warnings).toEqual(["amoy: relayer balance below the threshold"]);
    expect(await read(bare)).toMatchObject({ bridge_mounted: false, bridges: [], warnings: [] });
  });

  it("error and security: a query is refused; no session or a merchant secret is 401", async () => {
    const withQuery = await api.call("GET", "/api/dashboard/x402?foo=1", {
      headers: { cookie: viewer.cookie },
    });
    expect(withQuery.status).toBe(400);
    expect(withQuery.headers.get("content-type")).toContain("application/problem+json");
    expect((await api.call("GET", "/api/dashboard/x402")).status).toBe(401);
    const merchant = await registerMerchant(api);
    const asMerchant = await api.call("GET", "/api/dashboard/x402", { headers: bearer(merchant.secret) });
    expect(asMerchant.json.code).toBe("admin_auth_required");
  });
});
