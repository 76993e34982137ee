import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { evmSignin, newEvmWallet, newSolanaWallet, signInUser, solanaSignin } from "./testing";

describe.each(storageDatabaseKinds("pglite"))("POST /api/user/wallets on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, {}, { clock: { now: () => new Date("2026-03-01T10:00:00Z") } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("happy: links an EVM and a Solana wallet; either then signs in to the same account", async () => {
    const user = await signInUser(api);
    const evm = newEvmWallet();
    const sol = newSolanaWallet();
    const first = await api.call("POST", "/api/user/wallets", {
      headers: user.headers,
      body: await evmSignin(api, evm),
    });
    expect(first.status, first.text).toBe(200);
    expect(first.json.wallet).toEqual({ kind: "evm", address: evm.address.toLowerCase() });
    const second = await api.call("POST", "/api/user/wallets", {
      headers: user.acting,
      body: await solanaSignin(api, sol),
    });
    expect(second.status, second.text).toBe(200);
    // Ordered by link time, then address: with the test's fixed clock only the set is meaningful.
    expect((second.json.wallets as { address: string }[]).map((wallet) => wallet.address).sort()).toEqual(
      [user.address.toLowerCase(), evm.address.toLowerCase(), sol.address].sort(),
    );
    // Linking a wallet the account already holds is not an error.
    const again = await api.call("POST", "/api/user/wallets", {
      headers: user.headers,
      body: await evmSignin(api, evm),
    });
    expect(again.status).toBe(200);
    const viaSolana = await api.call("POST", "/api/user/login", { body: await solanaSignin(api, sol) });
    expect(viaSolana.json.account_id).toBe(user.accountId);
  });

  it("conflict: a wallet of another account is 409 wallet_already_linked", async () => {
    const owner = newEvmWallet();
    await signInUser(api, owner);
    const other = await signInUser(api);
    const res = await api.call("POST", "/api/user/wallets", {
      headers: other.headers,
      body: await evmSignin(api, owner),
    });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("wallet_already_linked");
  });

  it("security: no session is 401; the cookie without the same-origin proof is 403; bad messages are refused", async () => {
    const body = await evmSignin(api, newEvmWallet());
    const none = await api.call("POST", "/api/user/wallets", { body });
    expect(none.status).toBe(401);
    const user = await signInUser(api);
    const bare = await api.call("POST", "/api/user/wallets", { headers: { cookie: user.cookie }, body });
    expect(bare.status).toBe(403);
    expect(bare.json.code).toBe("csrf_check_failed");
    const replay = await api.call("POST", "/api/user/wallets", { headers: user.headers, body });
    expect(replay.status).toBe(200);
    const again = await api.call("POST", "/api/user/wallets", { headers: user.headers, body });
    expect(again.json.code).toBe("signin_nonce_invalid");
    const foreign = await api.call("POST", "/api/user/wallets", {
      headers: user.headers,
      body: await evmSignin(api, newEvmWallet(), { domain: "evil.example" }),
    });
    expect(foreign.status).toBe(401);
    expect(foreign.json.code).toBe("signin_message_rejected");
  });
});
