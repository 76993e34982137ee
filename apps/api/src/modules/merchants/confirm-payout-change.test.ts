/**
 * Payout change with owner step-up: real wallets sign the server's challenge; the API runs on a real
 * loopback server over PGlite (and PostgreSQL when TEST_DATABASE_URL is set).
 */
import { sign } from "node:crypto";
import { settlements, webhookEvents } from "@tollgate/db";
import bs58 from "bs58";
import { eq } from "drizzle-orm";
import type { LocalAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditTrailOf, bearer, startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { IDENTITY_POINT_KEY, IDENTITY_POINT_SIGNATURE } from "../identity/testing";
import { settlementRow } from "../operators/testing";
import { newEvmWallet, newSolanaWallet } from "../users/testing";
import { findMerchantCached } from "./merchant-service";

describe.each(testDatabaseKinds())("POST /v1/merchants/{id}/payout-change on %s", (kind) => {
  let api: TestApi;
  let nowMs = Date.parse("2026-11-20T10:00:00.000Z");
  beforeAll(async () => {
    api = await startTestApi(
      kind,
      { RATE_LIMIT_REGISTRATIONS_PER_HOUR: "1000" },
      { clock: { now: () => new Date(nowMs) } },
    );
  });
  afterAll(async () => {
    await api?.close();
  });

  async function register(payTo: Record<string, string>) {
    const created = await api.call("POST", "/v1/merchants", { body: { name: "Acme", pay_to: payTo } });
    expect(created.status).toBe(201);
    return { id: String(created.json.merchant_id), secret: String(created.json.secret) };
  }

  async function evmMerchant() {
    const wallet = newEvmWallet();
    return { wallet, ...(await register({ evm: wallet.address })) };
  }

  async function challenge(m: { id: string; secret: string }, payTo: Record<string, unknown>) {
    const answer = await api.call("POST", `/v1/merchants/${m.id}/payout-change/challenge`, {
      headers: bearer(m.secret),
      body: { pay_to: payTo },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as { message: string; nonce: string; expires_at: string; signer: { kind: string } };
  }

  const confirm = (m: { id: string; secret: string }, body: Record<string, unknown>) =>
    api.call("POST", `/v1/merchants/${m.id}/payout-change`, { headers: bearer(m.secret), body });

  const signEvm = (wallet: LocalAccount, message: string) => wallet.signMessage({ message });

  it("happy: the current EVM payout signs; pay_to changes, settlements link, audited, webhook queued", async () => {
    const m = await evmMerchant();
    const next = newEvmWallet();
    await api.call("POST", `/v1/merchants/${m.id}/webhook-secret`, { headers: bearer(m.secret) });
    await api.deps.db.db
      .insert(settlements)
      .values(settlementRow(901, { merchantId: null, merchantAddress: next.address.toLowerCase() }));
    // The quote path caches the merchant; the clock stands still, so only invalidation refreshes it.
    expect((await findMerchantCached(api.deps, m.id))?.payTo).toEqual({ evm: m.wallet.address });
    const c = await challenge(m, { evm: next.address });
    expect(c.signer).toEqual({ kind: "evm", address: m.wallet.address.toLowerCase() });
    expect(c.message).toContain(`wants you to sign in with your Ethereum account:\n${m.wallet.address}`);
    expect(c.message).toContain(`Tollgate merchant ${m.id} to: evm ${next.address}`);
    expect(c.message).toContain(`Nonce: ${c.nonce}`);
    expect(c.expires_at).toBe(new Date(nowMs + 300_000).toISOString());

    const done = await confirm(m, {
      nonce: c.nonce,
      signature: await signEvm(m.wallet, c.message),
      pay_to: { evm: next.address },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.headers.get("cache-control")).toBe("no-store");
    expect(done.json.pay_to).toEqual({ evm: next.address });
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(m.secret) });
    expect(me.json.pay_to).toEqual({ evm: next.address });
    expect((await findMerchantCached(api.deps, m.id))?.payTo).toEqual({ evm: next.address });
    const [linked] = await api.deps.db.db
      .select()
      .from(settlements)
      .where(eq(settlements.blockNumber, 1001n));
    expect(linked?.merchantId).toBe(m.id);
    const trail = await auditTrailOf(api, m.id);
    expect(trail.map((row) => row.action)).toContain("merchant.payout_changed");
    const audit = trail.find((row) => row.action === "merchant.payout_changed");
    expect(audit?.before).toEqual({ pay_to: { evm: m.wallet.address } });
    expect(audit?.after).toEqual({ pay_to: { evm: next.address } });
    const events = await api.deps.db.db
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.merchantId, m.id));
    const event = events.find((e) => e.type === "merchant.payout_changed");
    expect(event?.payload).toMatchObject({
      merchant_id: m.id,
      previous_pay_to: { evm: m.wallet.address },
      pay_to: { evm: next.address },
      signed_by: { kind: "evm", address: m.wallet.address.toLowerCase() },
    });
  });

  it("error: a signature by another wallet is 403 and changes nothing; the right one still works after", async () => {
    const m = await evmMerchant();
    const next = newEvmWallet();
    const c = await challenge(m, { evm: next.address });
    const wrong = await confirm(m, {
      nonce: c.nonce,
      signature: await signEvm(newEvmWallet(), c.message),
      pay_to: { evm: next.address },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.json.code).toBe("payout_change_signature_invalid");
    expect(wrong.headers.get("content-type")).toMatch(/application\/problem\+json/);
    // The new payout signing for itself is no proof either.
    const self = await confirm(m, {
      nonce: c.nonce,
      signature: await signEvm(next, c.message),
      pay_to: { evm: next.address },
    });
    expect(self.json.code).toBe("payout_change_signature_invalid");
    const garbage = await confirm(m, { nonce: c.nonce, signature: "0x1234", pay_to: { evm: next.address } });
    expect(garbage.json.code).toBe("payout_change_signature_invalid");
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(m.secret) });
    expect(me.json.pay_to).toEqual({ evm: m.wallet.address });
    expect((await auditTrailOf(api, m.id)).map((row) => row.action)).not.toContain("merchant.payout_changed");
    const ok = await confirm(m, {
      nonce: c.nonce,
      signature: await signEvm(m.wallet, c.message),
      pay_to: { evm: next.address },
    });
    expect(ok.status).toBe(200);
  });

  it("security: a used nonce cannot be replayed", async () => {
    const m = await evmMerchant();
    const next = newEvmWallet();
    const c = await challenge(m, { evm: next.address });
    const body = {
      nonce: c.nonce,
      signature: await signEvm(m.wallet, c.message),
      pay_to: { evm: next.address },
    };
    expect((await confirm(m, body)).status).toBe(200);
    const replay = await confirm(m, body);
    expect(replay.status).toBe(409);
    expect(replay.json.code).toBe("payout_change_nonce_invalid");
  });

  it("security: an expired challenge is refused", async () => {
    const m = await evmMerchant();
    const next = newEvmWallet();
    const c = await challenge(m, { evm: next.address });
    const signature = await signEvm(m.wallet, c.message);
    nowMs += 300_000;
    try {
      const late = await confirm(m, { nonce: c.nonce, signature, pay_to: { evm: next.address } });
      expect(late.status).toBe(409);
      expect(late.json.code).toBe("payout_change_nonce_invalid");
    } finally {
      nowMs += 1000;
    }
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(m.secret) });
    expect(me.json.pay_to).toEqual({ evm: m.wallet.address });
  });

  it("security: a pay_to other than the signed one is refused (tampering)", async () => {
    const m = await evmMerchant();
    const next = newEvmWallet();
    const attacker = newEvmWallet();
    const c = await challenge(m, { evm: next.address });
    const tampered = await confirm(m, {
      nonce: c.nonce,
      signature: await signEvm(m.wallet, c.message),
      pay_to: { evm: attacker.address },
    });
    expect(tampered.status).toBe(409);
    expect(tampered.json.code).toBe("payout_change_mismatch");
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(m.secret) });
    expect(me.json.pay_to).toEqual({ evm: m.wallet.address });
  });

  it("security: another merchant's id is 404; its nonce is useless with my id; no secret is 401", async () => {
    const a = await evmMerchant();
    const b = await evmMerchant();
    const next = newEvmWallet();
    const c = await challenge(a, { evm: next.address });
    const body = {
      nonce: c.nonce,
      signature: await signEvm(a.wallet, c.message),
      pay_to: { evm: next.address },
    };
    const cross = await api.call("POST", `/v1/merchants/${a.id}/payout-change`, {
      headers: bearer(b.secret),
      body,
    });
    expect(cross.status).toBe(404);
    expect(cross.json.code).toBe("merchant_not_found");
    const crossChallenge = await api.call("POST", `/v1/merchants/${a.id}/payout-change/challenge`, {
      headers: bearer(b.secret),
      body: { pay_to: { evm: next.address } },
    });
    expect(crossChallenge.status).toBe(404);
    const foreignNonce = await confirm(b, body);
    expect(foreignNonce.json.code).toBe("payout_change_nonce_invalid");
    expect((await api.call("POST", `/v1/merchants/${a.id}/payout-change`, { body })).status).toBe(401);
    expect((await confirm(a, body)).status).toBe(200);
  });

  it("race: two parallel confirmations with one nonce: exactly one wins", async () => {
    const m = await evmMerchant();
    const next = newEvmWallet();
    const c = await challenge(m, { evm: next.address });
    const body = {
      nonce: c.nonce,
      signature: await signEvm(m.wallet, c.message),
      pay_to: { evm: next.address },
    };
    const results = await Promise.all([confirm(m, body), confirm(m, body), confirm(m, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const changes = (await auditTrailOf(api, m.id)).filter((row) => row.action === "merchant.payout_changed");
    expect(changes).toHaveLength(1);
  });

  it("a new challenge replaces the previous one", async () => {
    const m = await evmMerchant();
    const next = newEvmWallet();
    const first = await challenge(m, { evm: next.address });
    await challenge(m, { evm: next.address });
    const old = await confirm(m, {
      nonce: first.nonce,
      signature: await signEvm(m.wallet, first.message),
      pay_to: { evm: next.address },
    });
    expect(old.json.code).toBe("payout_change_nonce_invalid");
  });

  it("Solana-only merchant: the current Solana payout signs the Solana form (Ed25519)", async () => {
    const wallet = newSolanaWallet();
    const m = await register({ solana: wallet.address });
    const next = newSolanaWallet();
    const c = await challenge(m, { solana: next.address });
    expect(c.signer).toEqual({ kind: "solana", address: wallet.address });
    expect(c.message).toContain(`wants you to sign in with your Solana account:\n${wallet.address}\n`);
    const signWith = (key: typeof wallet.privateKey) =>
      bs58.encode(sign(null, Buffer.from(c.message, "utf8"), key));
    const wrong = await confirm(m, {
      nonce: c.nonce,
      signature: signWith(next.privateKey),
      pay_to: { solana: next.address },
    });
    expect(wrong.json.code).toBe("payout_change_signature_invalid");
    const ok = await confirm(m, {
      nonce: c.nonce,
      signature: signWith(wallet.privateKey),
      pay_to: { solana: next.address },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.pay_to).toEqual({ solana: next.address });
  });

  it("security: a Solana payout at the identity point cannot be confirmed with R = identity, S = 0", async () => {
    // node:crypto alone accepts this pair over any message, so a stolen msec_ alone would pass the step-up.
    const m = await register({ solana: IDENTITY_POINT_KEY });
    const next = newSolanaWallet();
    const c = await challenge(m, { solana: next.address });
    expect(c.signer).toEqual({ kind: "solana", address: IDENTITY_POINT_KEY });
    const forged = await confirm(m, {
      nonce: c.nonce,
      signature: IDENTITY_POINT_SIGNATURE,
      pay_to: { solana: next.address },
    });
    expect(forged.status, forged.text).toBe(403);
    expect(forged.headers.get("content-type")).toContain("application/problem+json");
    expect(forged.json.code).toBe("payout_change_signature_invalid");
    const me = await api.call("GET", "/v1/merchants/me", { headers: bearer(m.secret) });
    expect(me.status).toBe(200);
    expect(me.json.pay_to).toEqual({ solana: IDENTITY_POINT_KEY });
  });

  it("error: a NEAR-only payout has no wallet that can sign: stable 409 code", async () => {
    const m = await register({ near: "acme.near" });
    const refused = await api.call("POST", `/v1/merchants/${m.id}/payout-change/challenge`, {
      headers: bearer(m.secret),
      body: { pay_to: { near: "other.near" } },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("payout_change_signer_unavailable");
  });

  it("error: bad input is a 400 with field errors, and an unchanged or empty payout is refused", async () => {
    const m = await evmMerchant();
    const bad = await api.call("POST", `/v1/merchants/${m.id}/payout-change/challenge`, {
      headers: bearer(m.secret),
      body: { pay_to: { evm: "0x123" } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("validation_failed");
    const same = await api.call("POST", `/v1/merchants/${m.id}/payout-change/challenge`, {
      headers: bearer(m.secret),
      body: { pay_to: { evm: m.wallet.address } },
    });
    expect(same.status).toBe(400);
    const empty = await api.call("POST", `/v1/merchants/${m.id}/payout-change/challenge`, {
      headers: bearer(m.secret),
      body: { pay_to: { evm: null } },
    });
    expect((empty.json.errors as { code: string }[])[0]?.code).toBe("pay_to_empty");
    const noBody = await confirm(m, {});
    expect(noBody.status).toBe(400);
  });
});
