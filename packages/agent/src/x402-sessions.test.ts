/**
 * The agent pays the x402 session schemes (docs/decisions/0087) on a STOCK server nobody here wrote: a loopback
 * HTTP server around `@x402/core`'s `x402HTTPResourceServer` with `@x402/evm`'s `upto` and `batch-settlement`
 * server schemes (the batch one on its in-memory channel storage), settling through the stock `x402Facilitator`
 * with the `upto` and `batch-settlement` facilitator schemes and a dev key, on a real local amoy chain (contracts at
 * the canonical addresses, decision 0080). Checked: upto settles the actual amount under the signed ceiling; a
 * series of batch calls runs in one channel (one deposit, then vouchers); a new agent on the same data dir continues
 * the channel with the right cumulative; `closeChannel` returns the unused deposit to the unit; a silent server
 * makes close start the timed withdrawal, finalized after the delay; the limits refuse before anything is signed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomAddress } from "@tollgate/api/testing/bridge";
import { agentOn, type LocalChains, startTestChains } from "@tollgate/api/testing/chains";
import { testUsdcAbi, X402_CANONICAL_ADDRESSES } from "@tollgate/shared";
import { x402Facilitator } from "@x402/core/facilitator";
import { type HTTPAdapter, x402HTTPResourceServer, x402ResourceServer } from "@x402/core/server";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { BatchSettlementEvmScheme as BatchFacilitator } from "@x402/evm/batch-settlement/facilitator";
import {
  BatchSettlementEvmScheme as BatchServer,
  InMemoryChannelStorage,
} from "@x402/evm/batch-settlement/server";
import { UptoEvmScheme as UptoFacilitator } from "@x402/evm/upto/facilitator";
import { UptoEvmScheme as UptoServer } from "@x402/evm/upto/server";
import { type Address, type LocalAccount, maxUint256, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "./agent";
import { runCli } from "./cli";
import { SpendLimitError } from "./errors";
import type { AgentLimits, AgentStep } from "./options";
import { FileAgentStore } from "./store";
import { x402AssetsFromManifest } from "./x402-offers";

const NETWORK = "eip155:80002";
const UPTO_CEILING = 200_000n; // 0.2 USDC signed
const UPTO_CHARGE = 123_457n; // what the server settles
const BATCH_PRICE = 10_000n; // 0.01 USDC per call

describe("agent pays the stock x402 upto and batch-settlement servers", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-agent-sessions-"));
  let chains: LocalChains;
  let server: Server;
  let url: string;
  /** When set, the server drops every connection (a server that does not answer). */
  let silent = false;
  const merchant = randomAddress();
  const handled: string[] = [];

  const chain = () => chains.chains[0] as NonNullable<LocalChains["chains"][0]>;
  const usdcAddress = () => chains.manifest.chains.amoy?.tokens.USDC?.address as Address;
  const usdcBalance = (who: Address) =>
    agentOn(chain(), 0).client.readContract({
      address: usdcAddress(),
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [who],
    });

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    const relayer = agentOn(chain(), 3);
    // The stock facilitator signer over the local chain. Its reads are calls FROM the facilitator: the upto proxy
    // simulates `settle`, which only the witness's facilitator may call.
    const signer = toFacilitatorEvmSigner({
      address: relayer.address,
      readContract: (args) => relayer.client.readContract({ ...args, account: relayer.account } as never),
      verifyTypedData: (args) => relayer.client.verifyTypedData(args as never),
      writeContract: (args) => relayer.wallet.writeContract(args as never),
      sendTransaction: (args) => relayer.wallet.sendTransaction(args as never),
      waitForTransactionReceipt: (args) => relayer.client.waitForTransactionReceipt(args as never),
      getCode: (args) => relayer.client.getCode(args),
    });
    // The receiver's authorizer: a dev key that only signs claims and refunds.
    const authorizer = privateKeyToAccount(generatePrivateKey());
    const facilitator = new x402Facilitator()
      .register(NETWORK, new UptoFacilitator(signer))
      .register(NETWORK, new BatchFacilitator(signer, authorizer));
    const resourceServer = new x402ResourceServer({
      verify: (payload, requirements) => facilitator.verify(payload, requirements),
      settle: (payload, requirements) => facilitator.settle(payload, requirements),
      getSupported: async () => facilitator.getSupported() as never,
    })
      .register(NETWORK, new UptoServer())
      .register(NETWORK, new BatchServer(merchant, { storage: new InMemoryChannelStorage() }));
    const usdc = chains.manifest.chains.amoy?.tokens.USDC;
    const domain = { name: usdc?.eip712?.name, version: usdc?.eip712?.version };
    const option = (scheme: string, amount: bigint, extra: Record<string, unknown> = {}) => ({
      scheme,
      payTo: merchant,
      price: { asset: usdcAddress(), amount: amount.toString(), extra: { ...domain, ...extra } },
      network: NETWORK as `${string}:${string}`,
      maxTimeoutSeconds: 300,
    });
    const http = new x402HTTPResourceServer(resourceServer, {
      "GET /upto": { accepts: option("upto", UPTO_CEILING) },
      "GET /batch": { accepts: option("batch-settlement", BATCH_PRICE, { withdrawDelay: 900 }) },
    });
    await http.initialize();
    server = createServer((req, res) => {
      if (silent) {
        req.socket.destroy();
        return;
      }
      void serve(http, req).then(({ status, headers, body }) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(body ?? {}));
      });
    });
    server.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 180_000);

  /** The stock HTTP server's request cycle: process, run the handler, settle (the upto route charges less). */
  async function serve(http: x402HTTPResourceServer, req: IncomingMessage) {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const header = (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value[0] : value;
    };
    const adapter: HTTPAdapter = {
      getHeader: header,
      getMethod: () => req.method ?? "GET",
      getPath: () => path,
      getUrl: () => `${url}${req.url}`,
      getAcceptHeader: () => header("accept") ?? "application/json",
      getUserAgent: () => header("user-agent") ?? "",
    };
    const context = {
      adapter,
      path,
      method: req.method ?? "GET",
      paymentHeader: header("payment-signature"),
    };
    const result = await http.processHTTPRequest(context);
    if (result.type === "no-payment-required") return { status: 200, headers: {}, body: { free: true } };
    if (result.type === "payment-error") return result.response;
    handled.push(path);
    const settled = await http.processSettlement(
      result.paymentPayload,
      result.paymentRequirements,
      result.declaredExtensions,
      { request: context },
      path === "/upto" ? { amount: UPTO_CHARGE.toString() } : undefined,
      result.beforeHandlerSettlement,
    );
    if (!settled.success) return settled.response;
    return { status: 200, headers: settled.headers, body: { paid: path } };
  }

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `tollgate-agent channels ...` as hardhat account `index`, on the data dir `dir`; output captured. */
  async function channelsCli(index: number, dir: string, args: string[]) {
    const key = agentOn(chain(), index).account.getHdKey().privateKey as Uint8Array;
    const out: string[] = [];
    const code = await runCli(
      ["channels", ...args, "--rpc", `80002=${chain().rpcUrl}`, "--store", join(dir, "agent-state.json")],
      {
        env: { TOLLGATE_AGENT_PRIVATE_KEY: toHex(key) },
        stdout: (text) => out.push(text),
        stderr: (text) => out.push(text),
        cwd: dir,
      },
    );
    return { code, text: out.join("") };
  }

  function agentWith(index: number, dir: string, limits: Partial<AgentLimits> = {}) {
    const base = agentOn(chain(), index).account;
    const counter = { signatures: 0 };
    const steps: AgentStep[] = [];
    const account: LocalAccount = {
      ...base,
      signTypedData: (parameters) => {
        counter.signatures += 1;
        return base.signTypedData(parameters);
      },
    };
    const agent = createAgent({
      account,
      chains: { 80002: { rpcUrl: chain().rpcUrl } },
      limits: {
        maxPerPaymentUsd: "0.5",
        budgetPerPeriod: { usd: "5", periodMs: 86_400_000 },
        allowedOrigins: [url],
        ...limits,
      },
      x402Assets: x402AssetsFromManifest(chains.manifest),
      store: new FileAgentStore(join(dir, "agent-state.json")),
      channelDir: join(dir, "channels"),
      onStep: (step) => {
        steps.push(step);
      },
      timing: { pollingIntervalMs: 100 },
    });
    return { agent, counter, steps, address: base.address };
  }

  it("pays upto: signs the ceiling, the stock facilitator settles the actual amount", async () => {
    const payer = agentOn(chain(), 6);
    // The upto scheme pulls through Permit2: the payer's one-time approval is its setup.
    const approval = await payer.wallet.writeContract({
      address: usdcAddress(),
      abi: testUsdcAbi,
      functionName: "approve",
      args: [X402_CANONICAL_ADDRESSES.permit2 as Address, maxUint256],
      account: payer.account,
      chain: undefined,
    });
    await payer.client.waitForTransactionReceipt({ hash: approval });
    const { agent, counter, steps, address } = agentWith(6, mkdtempSync(join(dataDir, "upto-")));
    const [merchantBefore, payerBefore] = [await usdcBalance(merchant), await usdcBalance(address)];
    const response = await agent.fetch(`${url}/upto`, undefined, { rail: "x402-upto" });
    expect(response.status, response.headers.get("payment-required") ?? "").toBe(200);
    expect(await response.json()).toEqual({ paid: "/upto" });
    expect(steps.find((s) => s.type === "rail_chosen")).toMatchObject({ rail: "x402-upto" });
    expect(counter.signatures).toBe(1);
    expect(await usdcBalance(address)).toBe(payerBefore - UPTO_CHARGE);
    expect(await usdcBalance(merchant)).toBe(merchantBefore + UPTO_CHARGE);
    // The budget counts the signed ceiling: the most the server could have settled.
    expect(await agent.spentInPeriod()).toBe("0.2");
  });

  it("runs a series of calls in one channel, continues it after a restart, and closes it to the unit", async () => {
    const dir = mkdtempSync(join(dataDir, "batch-"));
    const first = agentWith(7, dir);
    const payerBefore = await usdcBalance(first.address);
    for (let call = 0; call < 3; call++) {
      const response = await first.agent.fetch(`${url}/batch`, undefined, { expectedCalls: 10 });
      expect(response.status, await response.clone().text()).toBe(200);
    }
    // One deposit for the ten expected calls (signature: authorization + voucher), then one voucher a call.
    const deposits = first.steps.filter((s) => s.type === "channel_deposit");
    expect(deposits).toEqual([expect.objectContaining({ amountAtomic: (BATCH_PRICE * 10n).toString() })]);
    expect(first.counter.signatures).toBe(4);
    expect(await usdcBalance(first.address)).toBe(payerBefore - BATCH_PRICE * 10n);
    const [listed] = await first.agent.channels();
    expect(listed).toMatchObject({
      deposited: (BATCH_PRICE * 10n).toString(),
      balance: (BATCH_PRICE * 10n).toString(),
      charged: (BATCH_PRICE * 3n).toString(),
      state: "open",
    });

    // A new agent on the same data dir: the same channel, the cumulative goes on from 3 calls.
    const second = agentWith(7, dir);
    const response = await second.agent.fetch(`${url}/batch`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(second.steps.filter((s) => s.type === "channel_deposit")).toEqual([]);
    expect(second.steps.find((s) => s.type === "channel_voucher")).toMatchObject({
      channelId: listed?.channelId,
      cumulativeAtomic: (BATCH_PRICE * 4n).toString(),
    });
    expect(second.counter.signatures).toBe(1);

    // The CLI lists it from the same data dir: one readable line, and the same facts in JSON.
    const table = await channelsCli(7, dir, ["list"]);
    expect(table.code).toBe(0);
    expect(table.text).toMatch(/^CHANNEL\s+CHAIN\s+STATE\s+DEPOSITED/);
    expect(table.text).toContain(`${listed?.channelId}  80002  open   0.1 USDC`);
    const listedJson = await channelsCli(7, dir, ["list", "--json"]);
    expect(JSON.parse(listedJson.text)).toMatchObject({
      ok: true,
      channels: [{ channelId: listed?.channelId, charged: (BATCH_PRICE * 4n).toString() }],
    });

    // `channels close`: the server refunds everything not charged; the payer ends down exactly the four calls.
    const closed = await channelsCli(7, dir, ["close", listed?.channelId as string, "--json"]);
    expect(closed.code, closed.text).toBe(0);
    expect(JSON.parse(closed.text)).toMatchObject({
      ok: true,
      result: { action: "refunded", amount: (BATCH_PRICE * 6n).toString() },
    });
    expect(await usdcBalance(second.address)).toBe(payerBefore - BATCH_PRICE * 4n);
    const [after] = await second.agent.channels();
    expect(after).toMatchObject({ balance: (BATCH_PRICE * 4n).toString() });
  });

  it("the CLI refuses a malformed channel id and an unknown channel", async () => {
    const dir = mkdtempSync(join(dataDir, "cli-"));
    expect((await channelsCli(8, dir, ["close", "0x1234"])).code).toBe(2);
    const unknown = await channelsCli(8, dir, ["close", `0x${"ab".repeat(32)}`, "--json"]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.text)).toMatchObject({ ok: false, error: { code: "channel_unknown" } });
    expect((await channelsCli(8, dir, ["list"])).text).toBe("no channels\n");
  });

  it("refuses over the per-call, per-session and per-payment limits before signing", async () => {
    const perCall = agentWith(8, mkdtempSync(join(dataDir, "limits-")), { maxPerCallUsd: "0.005" });
    const callError = await perCall.agent.fetch(`${url}/batch`).catch((e: unknown) => e);
    expect(callError).toBeInstanceOf(SpendLimitError);
    expect(callError).toMatchObject({ code: "spend_limit", limit: "max_per_call", amountUsd: "0.01" });

    const perSession = agentWith(8, mkdtempSync(join(dataDir, "limits-")), { maxPerSessionUsd: "0.05" });
    const sessionError = await perSession.agent
      .fetch(`${url}/batch`, undefined, { expectedCalls: 10 })
      .catch((e: unknown) => e);
    expect(sessionError).toMatchObject({ code: "spend_limit", limit: "max_per_session" });

    const perPayment = agentWith(8, mkdtempSync(join(dataDir, "limits-")), { maxPerPaymentUsd: "0.1" });
    const paymentError = await perPayment.agent
      .fetch(`${url}/upto`, undefined, { rail: "x402-upto" })
      .catch((e: unknown) => e);
    expect(paymentError).toMatchObject({ code: "spend_limit", limit: "max_per_payment", amountUsd: "0.2" });

    for (const { counter, agent } of [perCall, perSession, perPayment]) {
      expect(counter.signatures).toBe(0);
      expect(await agent.spentInPeriod()).toBe("0");
    }
  });

  it("a silent server: close starts the timed withdrawal; finalize returns the unclaimed deposit", async () => {
    const dir = mkdtempSync(join(dataDir, "withdraw-"));
    const { agent, address } = agentWith(9, dir);
    const payerBefore = await usdcBalance(address);
    const paid = await agent.fetch(`${url}/batch`, undefined, { expectedCalls: 5 });
    expect(paid.status).toBe(200);
    const [channel] = await agent.channels();
    silent = true;
    try {
      const started = await agent.closeChannel(channel?.channelId as string);
      expect(started).toMatchObject({
        action: "withdrawal_initiated",
        amount: (BATCH_PRICE * 5n).toString(),
      });
      const early = await channelsCli(9, dir, [
        "close",
        channel?.channelId as string,
        "--finalize",
        "--json",
      ]);
      expect(early.code).toBe(1);
      expect(JSON.parse(early.text)).toMatchObject({ ok: false, error: { code: "channel_close_failed" } });
      expect((await channelsCli(9, dir, ["list"])).text).toContain("withdrawing");
      // Hardhat's own RPC methods, outside viem's typed list: past the channel's 900 s withdrawDelay.
      const node = chain().provider as unknown as {
        request(a: { method: string; params: unknown[] }): Promise<unknown>;
      };
      await node.request({ method: "evm_increaseTime", params: [901] });
      await node.request({ method: "evm_mine", params: [] });
      const done = await agent.closeChannel(channel?.channelId as string, { finalize: true });
      expect(done).toMatchObject({ action: "withdrawn", amount: (BATCH_PRICE * 5n).toString() });
    } finally {
      silent = false;
    }
    // Nothing was claimed: the whole deposit is back.
    expect(await usdcBalance(address)).toBe(payerBefore);
  });
});
