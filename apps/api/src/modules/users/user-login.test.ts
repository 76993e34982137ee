import { sign } from "node:crypto";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, testDatabaseKinds } from "../../test/harness";
import { IDENTITY_POINT_KEY, IDENTITY_POINT_SIGNATURE } from "../identity/testing";
import { askNonce, evmSignin, newEvmWallet, newSolanaWallet, solanaMessage, solanaSignin } from "./testing";

describe.each(testDatabaseKinds())("POST /api/user/nonce and /api/user/login on %s", (kind) => {
  let api: TestApi;
  let now = new Date("2026-03-01T10:00:00Z");
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => now } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const login = (body: unknown, headers: Record<string, string> = {}) =>
    api.call("POST", "/api/user/login", { body, headers });
  const expectCode = (res: Awaited<ReturnType<typeof login>>, status: number, code: string) => {
    expect(res.status, res.text).toBe(status);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.json.code, res.text).toBe(code);
  };

  it("nonce: names the domain, URI, times and accepted chains of this service", async () => {
    const answer = await api.call("POST", "/api/user/nonce", { body: { kind: "evm" } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const url = new URL(api.baseUrl);
    expect(answer.json).toMatchObject({
      kind: "evm",
      domain: url.host,
      uri: api.baseUrl,
      version: "1",
      issued_at: now.toISOString(),
      expiration_time: new Date(now.getTime() + 300_000).toISOString(),
    });
    expect(answer.json.nonce).toMatch(/^[1-9A-HJ-NP-Za-km-z]{16,}$/);
    expect(answer.json.chain_ids).toEqual(expect.arrayContaining([1, 137, 8453, 80002]));
    const second = await askNonce(api, "evm");
    expect(second.nonce).not.toBe(answer.json.nonce);
    expectCode(
      await api.call("POST", "/api/user/nonce", { body: { kind: "btc" } }),
      400,
      "validation_failed",
    );
  });

  it("happy (EVM): a SIWE message signed by a viem account starts a session; the same wallet finds the same account", async () => {
    const wallet = newEvmWallet();
    const res = await login(await evmSignin(api, wallet));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      wallet: { kind: "evm", address: wallet.address.toLowerCase() },
      token_type: "Bearer",
      wallets: [{ kind: "evm", address: wallet.address.toLowerCase() }],
    });
    expect(res.json.account_id).toMatch(/^acct_/);
    expect(res.json.token).toMatch(/^usr_/);
    const cookie = res.headers.getSetCookie().find((line) => line.startsWith("tollgate_user="));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toContain(`tollgate_user=${String(res.json.token)}`);
    const me = await api.call("GET", "/api/user/me", {
      headers: { authorization: `Bearer ${res.json.token}` },
    });
    expect(me.status).toBe(200);
    expect(me.json.account_id).toBe(res.json.account_id);
    const again = await login(await evmSignin(api, wallet));
    expect(again.status).toBe(200);
    expect(again.json.account_id).toBe(res.json.account_id);
    expect(again.json.token).not.toBe(res.json.token);
  });

  it("happy (Solana): an Ed25519 signature over the Solana form signs in", async () => {
    const wallet = newSolanaWallet();
    const res = await login(await solanaSignin(api, wallet));
    expect(res.status, res.text).toBe(200);
    expect(res.json.wallet).toEqual({ kind: "solana", address: wallet.address });
    // Chain ID is optional in the Solana form.
    const without = await login(await solanaSignin(api, wallet, { chain: undefined }));
    expect(without.status, without.text).toBe(200);
    expect(without.json.account_id).toBe(res.json.account_id);
  });

  it("security (Solana): the identity point with R = identity, S = 0 gets no session (strict Ed25519)", async () => {
    const answer = await askNonce(api, "solana");
    const messageFor = (address: string) =>
      solanaMessage(address, {
        domain: answer.domain,
        uri: answer.uri,
        nonce: answer.nonce,
        issuedAt: answer.issued_at,
        expirationTime: answer.expiration_time,
        chain: "mainnet",
      });
    const res = await login({
      kind: "solana",
      message: messageFor(IDENTITY_POINT_KEY),
      signature: IDENTITY_POINT_SIGNATURE,
      public_key: IDENTITY_POINT_KEY,
    });
    expectCode(res, 401, "signin_signature_invalid");
    expect(res.json.token).toBeUndefined();
    expect(res.headers.getSetCookie().some((line) => line.startsWith("tollgate_user="))).toBe(false);
    // The refusal came before the nonce was used: a real wallet signs in with the same nonce.
    const wallet = newSolanaWallet();
    const message = messageFor(wallet.address);
    const signature = bs58.encode(sign(null, Buffer.from(message, "utf8"), wallet.privateKey));
    const ok = await login({ kind: "solana", message, signature, public_key: wallet.address });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.token).toMatch(/^usr_/);
  });
  it("security: a replayed nonce is refused; of two parallel logins with one nonce exactly one wins", async () => {
    const body = await evmSignin(api, newEvmWallet());
    expect((await login(body)).status).toBe(200);
    expectCode(await login(body), 401, "signin_nonce_invalid");
    const racing = await evmSignin(api, newEvmWallet());
    const results = await Promise.all([login(racing), login(racing), login(racing)]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 401, 401]);
  });

  it("race: two first sign-ins of one wallet in parallel make one account", async () => {
    const wallet = newEvmWallet();
    const bodies = await Promise.all([
      evmSignin(api, wallet),
      evmSignin(api, wallet),
      evmSignin(api, wallet),
    ]);
    const results = await Promise.all(bodies.map((body) => login(body)));
    expect(results.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((res) => res.json.account_id)).size).toBe(1);
  });

  it("security: a message for another domain, another URI origin or another chain is refused", async () => {
    const wallet = newEvmWallet();
    expectCode(
      await login(await evmSignin(api, wallet, { domain: "evil.example" })),
      401,
      "signin_message_rejected",
    );
    expectCode(
      await login(await evmSignin(api, wallet, { uri: "https://evil.example/login" })),
      401,
      "signin_message_rejected",
    );
    expectCode(await login(await evmSignin(api, wallet, { chainId: 56 })), 401, "signin_message_rejected");
    // Any URI on the service's own origin is fine.
    const own = await login(await evmSignin(api, wallet, { uri: `${api.baseUrl}/console/login` }));
    expect(own.status, own.text).toBe(200);
    const sol = newSolanaWallet();
    expectCode(
      await login(await solanaSignin(api, sol, { domain: "evil.example" })),
      401,
      "signin_message_rejected",
    );
    expectCode(
      await login(await solanaSignin(api, sol, { chain: "ethereum" })),
      401,
      "signin_message_rejected",
    );
  });

  it("security: expired, not-yet-valid, too long-lived and future messages are refused", async () => {
    const wallet = newEvmWallet();
    const expired = await evmSignin(api, wallet);
    const issued = now;
    now = new Date(issued.getTime() + 301_000);
    try {
      expectCode(await login(expired), 401, "signin_message_rejected");
    } finally {
      now = issued;
    }
    expectCode(
      await login(await evmSignin(api, wallet, { notBefore: new Date(now.getTime() + 120_000) })),
      401,
      "signin_message_rejected",
    );
    expectCode(
      await login(await evmSignin(api, wallet, { expirationTime: new Date(now.getTime() + 86_400_000) })),
      401,
      "signin_message_rejected",
    );
    expectCode(
      await login(await evmSignin(api, wallet, { issuedAt: new Date(now.getTime() + 3_600_000) })),
      401,
      "signin_message_rejected",
    );
    // Just inside the nonce lifetime, a message signed at issue still signs in.
    const late = await evmSignin(api, wallet);
    now = new Date(issued.getTime() + 299_000);
    try {
      expect((await login(late)).status).toBe(200);
    } finally {
      now = issued;
    }
  });

  it("security: wrong signatures, an unknown nonce and a nonce of the other kind are refused", async () => {
    const wallet = newEvmWallet();
    const body = await evmSignin(api, wallet);
    const forged = await newEvmWallet().signMessage({ message: body.message });
    expectCode(await login({ ...body, signature: forged }), 401, "signin_signature_invalid");
    expectCode(await login({ ...body, signature: "0x1234" }), 401, "signin_signature_invalid");
    // The forged attempts did not burn the nonce.
    expect((await login(body)).status).toBe(200);

    const sol = newSolanaWallet();
    const solBody = await solanaSignin(api, sol);
    const other = await solanaSignin(api, newSolanaWallet());
    expectCode(await login({ ...solBody, signature: other.signature }), 401, "signin_signature_invalid");
    expectCode(await login({ ...solBody, public_key: other.public_key }), 401, "signin_message_rejected");

    expectCode(
      await login(await evmSignin(api, wallet, { nonce: "abcdefgh12345678" })),
      401,
      "signin_nonce_invalid",
    );
    const solanaNonce = await askNonce(api, "solana");
    expectCode(
      await login(await evmSignin(api, wallet, { nonce: solanaNonce.nonce })),
      401,
      "signin_nonce_invalid",
    );
  });

  it("error: malformed bodies and messages are 400 problem+json", async () => {
    expectCode(
      await login({ kind: "evm", message: "hello", signature: "0x00" }),
      400,
      "signin_message_malformed",
    );
    expectCode(await login({ kind: "tron", message: "hello", signature: "00" }), 400, "validation_failed");
    expectCode(await login({ kind: "evm", message: "a\u0000b", signature: "00" }), 400, "validation_failed");
    expectCode(await login({ kind: "evm", message: "x", signature: "0x 00" }), 400, "validation_failed");
    expectCode(
      await login({ kind: "evm", message: "x", signature: "00", extra: 1 }),
      400,
      "validation_failed",
    );
    const sol = await solanaSignin(api, newSolanaWallet());
    const { public_key: _omitted, ...withoutKey } = sol;
    expectCode(await login(withoutKey), 400, "validation_failed");
    // A message without an expiry is not accepted: the server bounds every session's proof in time.
    const answer = await askNonce(api, "solana");
    const wallet = newSolanaWallet();
    const message = solanaMessage(wallet.address, {
      domain: answer.domain,
      uri: answer.uri,
      nonce: answer.nonce,
      issuedAt: answer.issued_at,
      expirationTime: "",
    }).replace(/\nExpiration Time: $/, "");
    expectCode(
      await login({ kind: "solana", message, signature: sol.signature, public_key: wallet.address }),
      400,
      "signin_message_malformed",
    );
  });

  it("security: a cross-site page cannot sign a browser in (login CSRF)", async () => {
    const body = await evmSignin(api, newEvmWallet());
    expectCode(await login(body, { origin: "https://evil.example" }), 403, "csrf_check_failed");
    const res = await login(body, { origin: new URL(api.baseUrl).origin, "x-tollgate-csrf": "1" });
    expect(res.status, res.text).toBe(200);
  });
});
