/**
 * The agent keeps the session receipt of what it pays by voucher or `upto` (./session-receipt.ts): against the real
 * Tollgate API with its bridge mounted (receipt keys, JWKS served over HTTP) on a real local amoy chain, the agent
 * pays `upto` and `batch-settlement`, reports a `session_receipt` step verified against the issuer's JWKS, and the
 * CLI's `pay --json` prints it. A receipt whose claims were altered is reported as not verified, never trusted.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi } from "@tollgate/api/testing";
import { randomAddress, startTestUpstream, type TestUpstream } from "@tollgate/api/testing/bridge";
import { agentOn, type LocalChains, startTestChains } from "@tollgate/api/testing/chains";
import { testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { type Address, maxUint256, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import { JwksCache } from "./checks";
import { runCli } from "./cli";
import type { AgentStep } from "./options";
import { readSessionReceipt, type SessionReceipt, sessionReceiptOf } from "./session-receipt";
import { x402AssetsFromManifest } from "./x402-offers";

const PRICE = 20_000n;

describe("agent: session receipts of upto and batch-settlement payments (bridge in the API)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-agent-session-receipt-"));
  const merchant = randomAddress();
  let chains: LocalChains;
  let upstream: TestUpstream;
  let api: TestApi;
  let manifestPath: string;

  const chain = () => chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
  const usdc = () => chains.manifest.chains.amoy?.tokens.USDC?.address as Address;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    upstream = await startTestUpstream();
    const providers = join(dataDir, "providers.json");
    writeFileSync(
      providers,
      JSON.stringify({
        providers: [
          {
            id: "shop",
            upstream_url: `${upstream.url}/api`,
            price_usdc_units: PRICE.toString(),
            merchant_wallet: merchant,
          },
        ],
      }),
    );
    manifestPath = join(dataDir, "manifest.json");
    writeFileSync(manifestPath, JSON.stringify(chains.manifest));
    api = await startTestApi("pglite", {
      DATA_DIR: dataDir,
      BRIDGE_PROVIDERS_FILE: providers,
      CONFIRMATIONS_AMOY: "1",
    });
  }, 180_000);

  afterAll(async () => {
    await api?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function approvePermit2(index: number) {
    const payer = agentOn(chain(), index);
    const hash = await payer.wallet.writeContract({
      address: usdc(),
      abi: testUsdcAbi,
      functionName: "approve",
      args: [X402_CANONICAL_ADDRESSES.permit2 as Address, maxUint256],
      account: payer.account,
      chain: undefined,
    });
    await payer.client.waitForTransactionReceipt({ hash });
  }

  function agentAt(index: number) {
    const steps: AgentStep[] = [];
    const agent = createAgent({
      account: agentOn(chain(), index).account,
      chains: { 80002: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "0.5",
        budgetPerPeriod: { usd: "5", periodMs: 86_400_000 },
        allowedOrigins: [api.baseUrl],
      },
      x402Assets: x402AssetsFromManifest(chains.manifest),
      channelDir: mkdtempSync(join(dataDir, "channels-")),
      onStep: (step) => {
        steps.push(step);
      },
      timing: { pollingIntervalMs: 100 },
    });
    const receipts = () =>
      steps.filter((s): s is Extract<AgentStep, { type: "session_receipt" }> => s.type === "session_receipt");
    return { agent, steps, receipts };
  }

  it("upto: the session receipt is reported verified and names the settlement; readSessionReceipt finds it", async () => {
    await approvePermit2(16);
    const { agent, receipts } = agentAt(16);
    const response = await agent.fetch(`${api.baseUrl}/bridge/shop/search?metered=777`, undefined, {
      rail: "x402-upto",
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const [receipt] = receipts();
    expect(receipt).toMatchObject({
      scheme: "upto",
      verified: true,
      issuer: api.baseUrl,
      payTo: merchant,
      amount: "777",
      chargedCumulativeAmount: "777",
      maxClaimableAmount: PRICE.toString(),
    });
    expect(receipt?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(readSessionReceipt(response)?.token).toBe(receipt?.token);
  }, 120_000);

  it("batch-settlement: one verified receipt per call, the channel's cumulative rising by the price", async () => {
    const { agent, receipts, steps } = agentAt(17);
    for (let i = 0; i < 2; i++) {
      const response = await agent.fetch(`${api.baseUrl}/bridge/shop/search?i=${i}`, undefined, {
        rail: "x402-batch-settlement",
        expectedCalls: 5,
      });
      expect(response.status, await response.clone().text()).toBe(200);
    }
    const kept = receipts();
    expect(kept.map((r) => [r.verified, r.amount, r.chargedCumulativeAmount])).toEqual([
      [true, PRICE.toString(), PRICE.toString()],
      [true, PRICE.toString(), (PRICE * 2n).toString()],
    ]);
    const voucher = steps.find((s) => s.type === "channel_voucher");
    expect(kept[0]?.channelId).toBe(voucher && "channelId" in voucher ? voucher.channelId.toLowerCase() : "");
    expect(new Set(kept.map((r) => r.jti)).size).toBe(2);
  }, 120_000);

  it("tampered: a receipt whose amount was altered is reported as not verified", async () => {
    await approvePermit2(18);
    const { agent, receipts } = agentAt(18);
    const response = await agent.fetch(`${api.baseUrl}/bridge/shop/search?metered=5`, undefined, {
      rail: "x402-upto",
    });
    const original = receipts()[0] as SessionReceipt;
    const [header, body, signature] = original.token.split(".");
    const claims = JSON.parse(Buffer.from(body as string, "base64url").toString("utf8"));
    const forgedToken = `${header}.${Buffer.from(JSON.stringify({ ...claims, amount: "1" })).toString("base64url")}.${signature}`;
    const settled = JSON.parse(
      Buffer.from(response.headers.get("payment-response") as string, "base64").toString("utf8"),
    );
    settled.extensions["offer-receipt"].info.receipt.signature = forgedToken;
    const forged = new Response("{}", {
      headers: { "payment-response": Buffer.from(JSON.stringify(settled)).toString("base64") },
    });
    const deps = { jwks: new JwksCache(fetch), payer: agentOn(chain(), 18).account.address };
    expect(await sessionReceiptOf(forged, { ...deps, allowedOrigins: new Set([api.baseUrl]) })).toMatchObject(
      {
        amount: "1",
        verified: false,
      },
    );
    // An issuer the agent does not trust is never fetched: reported unchecked.
    expect(await sessionReceiptOf(response, { ...deps, allowedOrigins: new Set() })).toMatchObject({
      verified: null,
    });
    expect(readSessionReceipt(new Response("{}"))).toBeUndefined();
  }, 120_000);

  it("the CLI's pay --json prints the session receipt", async () => {
    const dir = mkdtempSync(join(dataDir, "cli-"));
    const key = agentOn(chain(), 19).account.getHdKey().privateKey as Uint8Array;
    const out: string[] = [];
    const code = await runCli(
      [
        "pay",
        `${api.baseUrl}/bridge/shop/search?cli=1`,
        "--json",
        "--rail",
        "x402-batch-settlement",
        "--rpc",
        `80002=${chain().rpcUrl}`,
        "--manifest",
        manifestPath,
        "--api-origin",
        api.baseUrl,
        "--store",
        join(dir, "agent-state.json"),
      ],
      {
        env: { TOLLGATE_AGENT_PRIVATE_KEY: toHex(key) },
        stdout: (text) => out.push(text),
        stderr: (text) => out.push(text),
        cwd: dir,
      },
    );
    expect(code, out.join("")).toBe(0);
    const printed = JSON.parse(out.join(""));
    expect(printed.session_receipt).toMatchObject({
      scheme: "batch-settlement",
      verified: true,
      amount: PRICE.toString(),
    });
    expect(printed.session_receipt.token.split(".")).toHaveLength(3);
  }, 120_000);
});
