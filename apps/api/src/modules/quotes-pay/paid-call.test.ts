/**
 * The whole generation-1 paid call on real parts: local chain, the API issuing receipts, and merchants'
 * Express servers gated by @tollgate/gate verifying them against the API's JWKS (SPEC §1).
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiptVerifier, gate } from "@tollgate/gate";
import {
  type GateChallenge,
  QUOTA_REMAINING_HEADER,
  type QuoteResponse,
  RECEIPT_HEADER,
} from "@tollgate/shared";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChains, payChallenge, startTestChains } from "../../test/chains";
import { registrationBody, startTestApi, type TestApi } from "../../test/harness";
import { rotateReceiptKey } from "../receipts/receipt-key-file";

describe("paid call end to end", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-e2e-"));
  let chains: LocalChains;
  let api: TestApi;
  let agent: Agent;
  let merchantA: string;
  let merchantB: string;
  let server: Server;
  let shopUrl: string;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi("pglite", { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1" });
    agent = agentOn(chains.chains[0]!, 11);
    const register = async () =>
      String(
        (
          await api.call("POST", "/v1/merchants", {
            body: registrationBody({ network_mode: "test", tiers: { standard: "0.05" } }),
          })
        ).json.merchant_id,
      );
    merchantA = await register();
    merchantB = await register();
    // One shared verifier; its refetch cooldown is scaled down (1 s) with the rotation lead (2 s) in the drill.
    const verifier = createReceiptVerifier({
      issuer: api.baseUrl,
      jwksUrl: `${api.baseUrl}/.well-known/jwks.json`,
      jwksCooldownMs: 1_000,
    });
    const app = express();
    app.get(
      "/a/search",
      gate({ merchantId: merchantA, tier: "standard", apiBaseUrl: api.baseUrl, verifier }),
      (_q, r) => {
        r.json({ results: ["a"] });
      },
    );
    app.get(
      "/b/search",
      gate({ merchantId: merchantB, tier: "standard", apiBaseUrl: api.baseUrl, verifier }),
      (_q, r) => {
        r.json({ results: ["b"] });
      },
    );
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** 402 -> quote -> settle -> pay, as an agent would, returning the receipt. */
  async function buy(path: string): Promise<{ receipt: string; quote: QuoteResponse }> {
    const challengeResponse = await fetch(`${shopUrl}${path}`);
    expect(challengeResponse.status).toBe(402);
    expect(challengeResponse.headers.get("www-authenticate")).toContain("AIFP");
    return payChallenge(agent, (await challengeResponse.json()) as GateChallenge);
  }

  const call = (path: string, receipt: string) =>
    fetch(`${shopUrl}${path}`, { headers: { [RECEIPT_HEADER]: receipt } });

  it("a receipt buys quota on the merchant's gate, metered to exhaustion, then 402 again", async () => {
    const { receipt, quote } = await buy("/a/search");
    expect(quote.units).toBe(2); // 0.05 USD per unit, 0.1 USD minimum
    const first = await call("/a/search", receipt);
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await first.json()).toEqual({ results: ["a"] });
    expect(first.headers.get(QUOTA_REMAINING_HEADER)).toBe("1");
    const second = await call("/a/search", receipt);
    expect(second.headers.get(QUOTA_REMAINING_HEADER)).toBe("0");
    const third = await call("/a/search", receipt);
    expect(third.status).toBe(402);
    expect(((await third.json()) as GateChallenge).code).toBe("quota_exhausted");
  });

  it("a receipt for merchant A is refused by merchant B's gate", async () => {
    const { receipt } = await buy("/a/search");
    const refused = await call("/b/search", receipt);
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as GateChallenge).code).toBe("receipt_invalid");
    // Still good where it belongs.
    expect((await call("/a/search", receipt)).status).toBe(200);
  });

  it("a receipt scoped to one resource does not open another", async () => {
    const { receipt } = await buy("/a/search");
    const app = express();
    app.get(
      "/a/other",
      gate({ merchantId: merchantA, tier: "standard", apiBaseUrl: api.baseUrl }),
      (_q, r) => {
        r.json({});
      },
    );
    const other = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => other.once("listening", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(other.address() as AddressInfo).port}/a/other`, {
        headers: { [RECEIPT_HEADER]: receipt },
      });
      expect(response.status).toBe(402);
      const body = (await response.json()) as GateChallenge;
      expect(body.code).toBe("receipt_invalid");
      expect(body.detail).toContain("scope_mismatch");
    } finally {
      other.close();
    }
  });

  it("JWKS key rotation: receipts signed before and after both verify during the grace period", async () => {
    const before = await buy("/a/search");
    // Warm the gate's JWKS cache, then rotate with a lead longer than the verifier's cooldown.
    expect((await call("/a/search", before.receipt)).status).toBe(200);
    await rotateReceiptKey(api.deps.env.receiptKeysFile, new Date(), 2);
    // The API re-reads the key file within its reload interval (5 s), past the 2 s lead.
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    const after = await buy("/a/search");
    const kid = (token: string) => JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid;
    expect(kid(after.receipt)).not.toBe(kid(before.receipt));
    const old = await call("/a/search", before.receipt);
    expect(old.status, await old.clone().text()).toBe(200);
    const fresh = await call("/a/search", after.receipt);
    expect(fresh.status, await fresh.clone().text()).toBe(200);
  }, 60_000);
});
