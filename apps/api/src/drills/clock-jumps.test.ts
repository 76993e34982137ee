/**
 * Drill: the clock jumps forward and back by 10 minutes. Services take a clock, so the API here runs
 * on one the test moves. What must hold (docs/operations.md, "The clock jumps"):
 * - quotes: whether a payment was in time is judged by its block's timestamp, never by the server's clock; a
 *   payment mined after its quote expired (the chain's clock 10 min ahead) is refused, nothing stored;
 * - sign-in nonces expire after USER_NONCE_TTL_SECONDS of the server's clock; a backward jump does not revive
 *   an expired one;
 * - sessions end after their idle time; a backward jump never ends one early;
 * - receipts: a gate refuses a receipt once its `exp` is past on the gate's clock (+10 min with a 5 min TTL),
 *   and accepts it while it is not (-10 min).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { receipts } from "@tollgate/db";
import { createReceiptVerifier } from "@tollgate/gate";
import type { QuoteResponse } from "@tollgate/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../infra/clock";
import { evmSignin, newEvmWallet, signInUser } from "../modules/users/testing";
import {
  type Agent,
  agentOn,
  type LocalChains,
  payBody,
  sendSettlement,
  startTestChains,
} from "../test/chains";
import { registrationBody, startTestApi, type TestApi } from "../test/harness";

const MINUTE = 60_000;

/** Real time plus an offset the test sets: a clock that jumps. */
class JumpingClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

describe("drill: clock jumps of ±10 minutes", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-drill-clock-"));
  const clock = new JumpingClock();
  let chains: LocalChains;
  let api: TestApi;
  let agent: Agent;
  let merchantId: string;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(
      "pglite",
      {
        DATA_DIR: dataDir,
        CONFIRMATIONS_AMOY: "1",
        LATE_PAYMENT_GRACE_SECONDS: "0",
        RECEIPT_TTL_SECONDS: "300",
        USER_NONCE_TTL_SECONDS: "300",
        USER_SESSION_IDLE_MINUTES: "5",
      },
      { clock },
    );
    agent = agentOn(chains.chains[0]!, 11);
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.001" } }),
    });
    merchantId = String(created.json.merchant_id);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function quote(): Promise<QuoteResponse> {
    const quoted = await api.call("POST", "/v1/quote", {
      body: {
        merchant_id: merchantId,
        resource: "/v1/search",
        tier: "standard",
        payer: agent.address,
        asset: "POL",
      },
    });
    expect(quoted.status, quoted.text).toBe(200);
    return quoted.json as unknown as QuoteResponse;
  }
  const pay = async (q: QuoteResponse, tx: `0x${string}`, key: string) =>
    api.call("POST", "/v1/pay", {
      headers: { "idempotency-key": key },
      body: await payBody(agent, q, tx, key, new Date(clock.now().getTime() + 5 * MINUTE)),
    });

  it("quotes and receipts: the server's jump does not make an in-time payment late; the gate's clock expires the receipt", async () => {
    clock.offsetMs = 0;
    const q = await quote();
    const tx = await sendSettlement(agent, q.settlement_call);
    // The server's clock is now past the quote's expiry (QUOTE_TTL_SECONDS 600); the block's time is not.
    clock.offsetMs = 10 * MINUTE + 1_000;
    const asked = clock.now().getTime();
    const paid = await pay(q, tx, "drill-clock-quote-forward-1");
    expect(paid.status, paid.text).toBe(200);
    const issuedAt = clock.now().getTime();
    // The receipt's expiry follows the server's (jumped) clock: RECEIPT_TTL_SECONDS after issue.
    const expiresAt = Date.parse(String(paid.json.expires_at));
    expect(expiresAt).toBeGreaterThanOrEqual(asked + 300_000 - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(issuedAt + 300_000);

    let gateNow = issuedAt;
    const verifier = createReceiptVerifier({
      issuer: api.deps.env.baseUrl,
      jwksUrl: `${api.baseUrl}/.well-known/jwks.json`,
      clockToleranceSec: 30,
      now: () => gateNow,
    });
    const token = String(paid.json.receipt);
    const verdict = await verifier.verify(token, { merchantId, resource: "/v1/search" });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true });
    // The gate's clock 10 min behind: the receipt is not expired there, so it verifies.
    gateNow = issuedAt - 10 * MINUTE;
    const behind = createReceiptVerifier({
      issuer: api.deps.env.baseUrl,
      jwksUrl: `${api.baseUrl}/.well-known/jwks.json`,
      now: () => gateNow,
    });
    expect(await behind.verify(token, { merchantId, resource: "/v1/search" })).toMatchObject({ ok: true });
    // 10 min ahead: past `exp` (5 min TTL) and its tolerance: refused as expired.
    gateNow = issuedAt + 10 * MINUTE;
    const ahead = createReceiptVerifier({
      issuer: api.deps.env.baseUrl,
      jwksUrl: `${api.baseUrl}/.well-known/jwks.json`,
      now: () => gateNow,
    });
    expect(await ahead.verify(token, { merchantId, resource: "/v1/search" })).toMatchObject({
      ok: false,
      reason: "expired",
    });
  });

  it("quotes: a payment mined after the quote expired (the chain 10 min ahead) is refused, nothing stored", async () => {
    clock.offsetMs = 0;
    const q = await quote();
    const chain = chains.chains[0]!;
    await chain.provider.request({ method: "evm_increaseTime", params: [10 * 60 + 1] } as never);
    const tx = await sendSettlement(agent, q.settlement_call);
    const before = (await api.deps.db.db.select().from(receipts)).length;
    const late = await pay(q, tx, "drill-clock-quote-late-1");
    expect(late.status, late.text).toBe(422);
    expect(late.json.code).toBe("payment_after_quote_expiry");
    expect((await api.deps.db.db.select().from(receipts)).length).toBe(before);
  });

  it("sign-in nonces: expired after +10 min, and a jump back does not revive them", async () => {
    clock.offsetMs = 0;
    const wallet = newEvmWallet();
    const body = await evmSignin(api, wallet);
    clock.offsetMs = 10 * MINUTE;
    const late = await api.call("POST", "/api/user/login", { body });
    expect(late.status, late.text).toBe(401);
    clock.offsetMs = -10 * MINUTE;
    const back = await api.call("POST", "/api/user/login", { body });
    expect(back.status, back.text).toBe(401);
    // A nonce asked for on the jumped-back clock works on that clock.
    const fresh = await api.call("POST", "/api/user/login", { body: await evmSignin(api, wallet) });
    expect(fresh.status, fresh.text).toBe(200);
  });

  it("sessions: idle past USER_SESSION_IDLE_MINUTES after +10 min; a jump back never ends one early", async () => {
    clock.offsetMs = 0;
    const user = await signInUser(api);
    const me = () => api.call("GET", "/api/user/me", { headers: user.headers });
    clock.offsetMs = -10 * MINUTE;
    expect((await me()).status).toBe(200);
    clock.offsetMs = 0;
    expect((await me()).status).toBe(200);
    clock.offsetMs = 10 * MINUTE;
    const ended = await me();
    expect(ended.status, ended.text).toBe(401);
    // Seen expired, it stays ended when the clock jumps back.
    clock.offsetMs = 0;
    expect((await me()).status).toBe(401);
  });
});
