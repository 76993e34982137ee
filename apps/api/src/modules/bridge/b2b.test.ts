import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { AppError, DEFAULT_NETWORKS, splitFromPrice, ZERO_ADDRESS } from "@tollgate/shared";
import express from "express";
import type { Address, Hash, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../infra/logger";
import { type Agent, agentOn, type LocalChains, startTestChains } from "../../test/chains";
import { createChainRegistry } from "../chains";
import { verifyPayment } from "../quotes-pay/payment-verifier";
import { createB2bRouter } from "./router";
import { readJson } from "./testing";

describe("/api/b2b quote-split and pay-with-split (v1.2 fee-on-top)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-b2b-"));
  let chains: LocalChains;
  let server: Server;
  let base: string;
  let agent: Agent;
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  const creator = privateKeyToAccount(generatePrivateKey()).address;
  let registry: ReturnType<typeof createChainRegistry>;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    registry = createChainRegistry(chains.manifest, {
      rpcUrls: {},
      confirmations: {},
      localConfirmations: 1,
      rpcTimeoutMs: 5000,
    });
    const app = express().use(createB2bRouter({ chains: registry, log: createLogger("silent") }));
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    agent = agentOn(chains.chains[0]!, 11);
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("quote-split returns the shared economics legs, fees on top of the price", async () => {
    const response = await fetch(
      `${base}/api/b2b/quote-split?merchant=${merchant}&price=1000003&asset=USDC&ip_creator=${creator}`,
    );
    expect(response.status).toBe(200);
    const quote = await readJson(response);
    const split = splitFromPrice("legacy-v12-fee-on-top-100-1-v1", 1_000_003n, { hasIpCreator: true });
    expect(quote).toMatchObject({
      economics_profile: "legacy-v12-fee-on-top-100-1-v1",
      network: "amoy",
      chain_id: 80002,
      price: "1000003",
      total: split.total.toString(),
      legs: {
        merchant: split.merchant.toString(),
        treasury: split.treasury.toString(),
        ip_creator: split.ipCreator.toString(),
      },
    });
    expect(BigInt(quote.legs.merchant)).toBeGreaterThanOrEqual(1_000_003n);
    const bad = await fetch(`${base}/api/b2b/quote-split?merchant=0x12&price=1`);
    expect(bad.status).toBe(400);
    const noStable = await fetch(`${base}/api/b2b/quote-split?merchant=${merchant}&price=1&asset=DAI`);
    expect(noStable.status).toBe(400);
  });

  async function send(call: { to: string; data: string; value: string }): Promise<Hash> {
    const hash = await agent.wallet.sendTransaction({
      account: agent.account,
      chain: null,
      to: call.to as Address,
      data: call.data as Hex,
      value: BigInt(call.value),
    });
    await agent.client.waitForTransactionReceipt({ hash });
    return hash;
  }

  it.each([
    ["POL", undefined],
    ["USDC", creator],
    ["USDT", undefined],
  ])(
    "pay-with-split %s: the returned call pays exactly the quoted legs through the real splitter",
    async (asset, ipCreator) => {
      const response = await fetch(`${base}/api/b2b/pay-with-split`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          merchant,
          price: "2500000",
          asset,
          ...(ipCreator ? { ip_creator: ipCreator } : {}),
        }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      const body = await readJson(response);
      expect(body.order_id).toMatch(/^ord_/);
      if (body.call.approval) await send(body.call.approval);
      const tx = await send(body.call);
      const verified = await verifyPayment(
        registry.get("amoy")!.client,
        tx,
        {
          splitter: body.splitter,
          orderId: body.order_id,
          payer: agent.address,
          merchant,
          token: asset === "POL" ? ZERO_ADDRESS : body.token,
          total: BigInt(body.total),
          merchantAmount: BigInt(body.legs.merchant),
          treasuryAmount: BigInt(body.legs.treasury),
          ipCreatorAmount: BigInt(body.legs.ip_creator),
        },
        1,
      );
      expect(verified.status).toBe("confirmed");
    },
  );
});

describe("/api/b2b errors go through the one problem writer", () => {
  it("keeps the error's Retry-After and logs a 5xx with its cause, without leaking it", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    let failure: Error = new AppError("chain_unavailable", "rpc down", { headers: { "Retry-After": "9" } });
    const chains = {
      get: () => {
        throw failure;
      },
      byChainId: () => undefined,
      all: () => [],
      networks: DEFAULT_NETWORKS,
    };
    const app = express().use(createB2bRouter({ chains, log: createLogger("info", sink) }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const merchant = privateKeyToAccount(generatePrivateKey()).address;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/b2b/quote-split?merchant=${merchant}&price=1`;
    try {
      const unavailable = await fetch(url);
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get("retry-after")).toBe("9");
      expect(unavailable.headers.get("content-type")).toContain("application/problem+json");
      expect((await readJson(unavailable)).code).toBe("chain_unavailable");
      failure = new Error("secret internal detail");
      const broken = await fetch(url);
      expect(broken.status).toBe(500);
      expect(await broken.text()).not.toContain("secret internal detail");
      const logged = lines.map((line) => JSON.parse(line) as { level: number; err?: { message: string } });
      expect(logged.filter((line) => line.level >= 50).map((line) => line.err?.message)).toEqual([
        "rpc down",
        "secret internal detail",
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
