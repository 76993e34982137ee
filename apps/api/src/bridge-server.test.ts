import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { feeOnTopTotal, splitterV12Abi } from "@tollgate/shared";
import { freePort } from "@tollgate/shared/test-process";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridgeServer } from "./bridge-server";
import { REPO_ROOT } from "./env";
import { readJson, startTestUpstream, type TestUpstream } from "./modules/bridge/testing";
import { agentOn, type LocalChains, startTestChains } from "./test/chains";

describe("single-provider bridge process (SPEC §4.5)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bridge-single-"));
  let chains: LocalChains;
  let upstream: TestUpstream;
  let bridge: RunningBridge;
  const merchant = privateKeyToAccount(generatePrivateKey()).address;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    upstream = await startTestUpstream();
    bridge = await startBridgeServer({
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: "0",
      UPSTREAM_URL: `${upstream.url}/api`,
      UPSTREAM_AUTH_STYLE: "bearer",
      UPSTREAM_API_KEY: "provider-key",
      PRICE_WEI: "2000000000000000",
      ROUTE_PATH: "/v1/chat",
      REQUIRE_BODY_FIELD: "model",
      BRIDGE_MERCHANT_WALLET: merchant,
      REDIS_URL: "",
    });
  }, 120_000);

  afterAll(async () => {
    await bridge?.close();
    await upstream?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${bridge.url}/v1/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer agent-own-token", ...headers },
      body: JSON.stringify(body),
    });

  it("serves ROUTE_PATH only, requires REQUIRE_BODY_FIELD, and is paid through pay_matic end to end", async () => {
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bridge.router.bridge.store.kind).toBe("memory");
    expect((await fetch(`${bridge.url}/v1/other`)).status).toBe(404);
    const missing = await post({ prompt: "hi" });
    expect(missing.status).toBe(400);
    expect((await readJson(missing)).detail).toMatch(/"model"/);
    const challenge = await post({ model: "m", prompt: "hi" });
    expect(challenge.status).toBe(402);
    const body = await readJson(challenge);
    expect(body.pay_matic.total_wei).toBe(feeOnTopTotal(2_000_000_000_000_000n).toString());
    expect(body.accepts).toEqual([]);
    const agent = agentOn(chains.chains[0]!, 13);
    const tx = await agent.wallet.writeContract({
      account: agent.account,
      chain: null,
      address: body.pay_matic.splitter as Address,
      abi: splitterV12Abi,
      functionName: "payMatic",
      args: [merchant, body.pay_matic.ip_creator, body.pay_matic.order_id],
      value: BigInt(body.pay_matic.total_wei),
    });
    await agent.client.waitForTransactionReceipt({ hash: tx });
    const paid = await post(
      { model: "m", prompt: "hi" },
      { "x-tx-hash": tx, "x-order-id": body.pay_matic.order_id },
    );
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(await readJson(paid)).toMatchObject({ path: "/api/v1/chat", method: "POST" });
    // The agent's own credential is replaced by the provider's key (UPSTREAM_AUTH_STYLE=bearer).
    expect(upstream.seen.at(-1)!.headers.authorization).toBe("Bearer provider-key");
    const known = await readJson(await fetch(`${bridge.url}/.well-known/x402.json`));
    expect(known.providers[0].resource).toBe(`${bridge.url}/v1/chat`);
  });

  it("reads bodies by the API's rules: a required body must be there, identity only", async () => {
    const problem = async (response: Response, status: number, code: string) => {
      const text = await response.text();
      expect(response.status, text).toBe(status);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(body.code, text).toBe(code);
      expect(body.request_id).toBe(response.headers.get("x-request-id"));
    };
    for (const path of ["/facilitator/verify", "/facilitator/settle"]) {
      const url = `${bridge.url}${path}`;
      await problem(await fetch(url, { method: "POST" }), 400, "body_required");
      await problem(
        await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "" }),
        400,
        "body_required",
      );
      const chunked = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({ start: (controller) => controller.close() }),
        duplex: "half",
      } as RequestInit);
      await problem(chunked, 400, "body_required");
      const gzip = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        body: "{}",
      });
      await problem(gzip, 415, "unsupported_media_type");
    }
    // A path the router cannot percent-decode is the client's error, not a 500.
    await problem(await fetch(`${bridge.url}/v1/%zz`), 400, "malformed_request");
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "the CLI serves once it prints its URLs and stops cleanly on %s: exit 0, port free",
    async (signal) => {
      const port = await freePort();
      const child = spawn(process.execPath, ["--import", "tsx", "src/cli/bridge.ts"], {
        cwd: join(REPO_ROOT, "apps/api"),
        env: {
          PATH: process.env.PATH,
          NODE_ENV: "test",
          LOG_LEVEL: "silent",
          DATA_DIR: dataDir,
          HOST: "127.0.0.1",
          PORT: String(port),
          UPSTREAM_URL: `${upstream.url}/api`,
          PRICE_WEI: "2000000000000000",
          ROUTE_PATH: "/v1/chat",
          BRIDGE_MERCHANT_WALLET: merchant,
          REDIS_URL: "",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const waiters: (() => void)[] = [];
      const collect = (chunk: unknown) => {
        output += String(chunk);
        for (const wake of waiters.splice(0)) wake();
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      const exited = new Promise<number | null>((resolve) =>
        child.once("exit", (code) => {
          resolve(code);
          collect("");
        }),
      );
      while (!output.includes("Discovery") && child.exitCode === null)
        await new Promise<void>((resolve) => waiters.push(resolve));
      const discovery = `http://127.0.0.1:${port}/.well-known/x402.json`;
      expect((await fetch(discovery)).status, output).toBe(200);
      child.kill(signal);
      expect(await exited, output).toBe(0);
      await expect(fetch(discovery)).rejects.toThrow();
    },
    120_000,
  );

  it("the CLI exits 2 with a message naming the bad variable", () => {
    const result = spawnSync("pnpm", ["exec", "tsx", "src/cli/bridge.ts"], {
      cwd: join(REPO_ROOT, "apps/api"),
      env: {
        ...process.env,
        UPSTREAM_URL: "",
        BRIDGE_MERCHANT_WALLET: merchant,
        PRICE_WEI: "1",
        DATA_DIR: dataDir,
      },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/UPSTREAM_URL/);
  });
});
