/**
 * `/api/payment-capabilities` and the registry agree with what `/v1/quote` accepts. Every
 * (network, version, asset) the capabilities mark `enabled` gets a quote on that route; every other one gets the
 * refusal (status and code) the capabilities predicted. Real local chains; some routes are closed on purpose: base
 * is paused by an operator and amoy's v1.4 route aifp1 is disabled on-chain.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SPLITTER_V14_ROUTES, splitterV14Abi } from "@tollgate/shared";
import { type Address, createWalletClient, custom, getAddress } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChains, startTestChains } from "../../test/chains";
import { registrationBody, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { DEV_MNEMONIC } from "../chains";
import { operatorBearer } from "../operators/testing";
import { ZPaymentCapabilities } from "./payment-capabilities.types";
import { ZRegistryCoverage } from "./registry.types";

const PAYER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";
const MODES = { polygon: "live", base: "live", amoy: "test" } as const;

describe.each(storageDatabaseKinds("pglite"))("capabilities agree with /v1/quote on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-capabilities-"));
  let chains: LocalChains;
  let api: TestApi;
  const merchants = new Map<string, string>();

  async function setAmoyRoute(enabled: boolean) {
    const chain = chains.chains.find((c) => c.network === "amoy")!;
    const admin = createWalletClient({
      account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 }),
      transport: custom(chain.provider),
    });
    await admin.writeContract({
      address: chains.manifest.chains.amoy!.splitters["v1.4"]!.address as Address,
      abi: splitterV14Abi,
      functionName: "setRouteEnabled",
      args: [SPLITTER_V14_ROUTES.aifp1, enabled],
      chain: null,
    });
  }

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["polygon", "base", "amoy"]);
    api = await startTestApi(kind, {
      DATA_DIR: dataDir,
      RATE_LIMIT_QUOTES_PER_MINUTE: "1000",
      RATE_LIMIT_PUBLIC_PER_MINUTE: "1000",
    });
    for (const mode of ["live", "test"])
      for (const version of ["1.2", "1.4"]) {
        const registered = await api.call("POST", "/v1/merchants", {
          body: registrationBody({ network_mode: mode, settlement_version: version }),
        });
        merchants.set(`${mode}:${version}`, String(registered.json.merchant_id));
      }
    const operator = { ...(await operatorBearer(api, "operator")), "x-tollgate-csrf": "1" };
    const paused = await api.call("POST", "/api/admin/pause", {
      headers: operator,
      body: { scope: "base", reason: "capabilities test" },
    });
    expect(paused.status, paused.text).toBe(200);
    await setAmoyRoute(false);
  }, 180_000);

  afterAll(async () => {
    await setAmoyRoute(true).catch(() => undefined);
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("every advertised combination answers as predicted, and some of each kind are covered", async () => {
    const response = await api.call("GET", "/api/payment-capabilities");
    expect(response.status, response.text).toBe(200);
    const capabilities = ZPaymentCapabilities.parse(response.json);
    const seen = { enabled: 0, paused: 0, disabled: 0 };
    for (const chain of capabilities.chains.filter((c) => c.family === "evm")) {
      const network = chain.network as keyof typeof MODES;
      for (const version of chain.settlement_versions) {
        for (const asset of version.assets) {
          const label = `${network} v${version.version} ${asset.symbol}`;
          const quote = await api.call("POST", "/v1/quote", {
            body: {
              merchant_id: merchants.get(`${MODES[network]}:${version.version}`),
              resource: "/agree",
              tier: "standard",
              payer: PAYER,
              network,
              asset: asset.symbol,
            },
          });
          if (asset.status === "enabled") {
            expect(quote.status, `${label}: ${quote.text}`).toBe(200);
            expect(quote.json, label).toMatchObject({
              network,
              chain_id: chain.chain_id,
              asset: asset.symbol,
              settlement_version: version.version,
            });
            expect(
              getAddress(
                String(quote.json.settlement_call && (quote.json.settlement_call as { to: string }).to),
              ),
              label,
            ).toBe(version.splitter);
            seen.enabled++;
          } else {
            expect(asset.refusal, label).not.toBeNull();
            expect(quote.status, `${label}: ${quote.text}`).toBe(asset.refusal!.status);
            expect(quote.json.code, label).toBe(asset.refusal!.code);
            seen[asset.status === "paused" ? "paused" : "disabled"]++;
          }
        }
      }
    }
    // The closed routes set up above are predicted, not just skipped.
    const base = capabilities.chains.find((c) => c.network === "base")!;
    expect(base.status).toBe("paused");
    expect(base.pause?.reason).toBe("capabilities test");
    const amoy14 = capabilities.chains
      .find((c) => c.network === "amoy")!
      .settlement_versions.find((v) => v.version === "1.4")!;
    expect(amoy14.refusal?.code).toBe("settlement_version_unavailable");
    expect(seen.enabled).toBeGreaterThanOrEqual(4);
    expect(seen.paused).toBeGreaterThan(0);
    expect(seen.disabled).toBeGreaterThan(0);
  });

  it("the coverage matrix's quote rows make the same predictions, including assets a network does not take", async () => {
    const coverage = ZRegistryCoverage.parse((await api.call("GET", "/api/registry/coverage")).json);
    const rows = coverage.rows.filter((row) => row.used_by === "quote");
    expect(rows.some((row) => row.network === "base" && row.asset === "POL")).toBe(true);
    for (const row of rows) {
      const network = row.network as keyof typeof MODES;
      const quote = await api.call("POST", "/v1/quote", {
        body: {
          merchant_id: merchants.get(`${MODES[network]}:${row.version}`),
          resource: "/agree",
          tier: "standard",
          payer: PAYER,
          network,
          asset: row.asset,
        },
      });
      const label = `${row.network} v${row.version} ${row.asset}`;
      if (row.status === "enabled") expect(quote.status, `${label}: ${quote.text}`).toBe(200);
      else {
        expect(quote.status, `${label}: ${quote.text}`).toBe(row.refusal?.status);
        expect(quote.json.code, label).toBe(row.refusal?.code);
      }
    }
  });
});
