import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { operatorBearer, registerMerchant } from "../operators/testing";
import { newSolanaWallet, type SignedInUser, signInUser, solanaSignin } from "../users/testing";

interface WalletUser {
  id: string;
  kind: string;
  last_login_at: string | null;
  wallets: { kind: string; address: string }[];
}

describe.each(storageDatabaseKinds("postgres"))("GET /admin/api/users on %s", (kind) => {
  let api: TestApi;
  let viewer: Record<string, string>;
  let alice: SignedInUser;
  let bob: SignedInUser;
  const solana = newSolanaWallet();
  beforeAll(async () => {
    api = await startTestApi(kind);
    viewer = await operatorBearer(api, "viewer");
    await operatorBearer(api, "owner");
    await operatorBearer(api, "operator");
    alice = await signInUser(api);
    bob = await signInUser(api);
    const linked = await api.call("POST", "/api/user/wallets", {
      headers: bob.acting,
      body: await solanaSignin(api, solana),
    });
    if (linked.status !== 200) throw new Error(`link failed: ${linked.status} ${linked.text}`);
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (query: string, headers: Record<string, string> = viewer) =>
    api.call("GET", `/admin/api/users${query}`, { headers });

  it("happy: operator accounts oldest first, cursor pages, no password hashes", async () => {
    const first = await get("?limit=2");
    expect(first.status).toBe(200);
    expect((first.json.users as { role: string; kind: string }[]).map((u) => [u.role, u.kind])).toEqual([
      ["viewer", "admin"],
      ["owner", "admin"],
    ]);
    expect(first.text).not.toMatch(/argon2|password/);
    const second = await get(`?limit=2&cursor=${String(first.json.next_cursor)}`);
    expect((second.json.users as { role: string }[]).map((u) => u.role)).toEqual(["operator"]);
    expect(second.json.next_cursor).toBeNull();
  });

  it("happy: role and disabled filters narrow the operator accounts", async () => {
    const owners = await get("?kind=admin&role=owner");
    expect((owners.json.users as { role: string }[]).map((u) => u.role)).toEqual(["owner"]);
    expect(((await get("?disabled=true")).json.users as unknown[]).length).toBe(0);
  });

  it("happy: kind=wallet lists wallet accounts with their linked wallets and last sign-in, cursor pages", async () => {
    const first = await get("?kind=wallet&limit=1");
    expect(first.status).toBe(200);
    const users = first.json.users as WalletUser[];
    expect(users).toHaveLength(1);
    expect(users[0]!.kind).toBe("wallet");
    expect(users[0]!.last_login_at).not.toBeNull();
    const second = await get(`?kind=wallet&limit=1&cursor=${String(first.json.next_cursor)}`);
    const rest = second.json.users as WalletUser[];
    expect(second.json.next_cursor).toBeNull();
    expect(new Set([...users, ...rest].map((u) => u.id))).toEqual(new Set([alice.accountId, bob.accountId]));
    const bobView = [...users, ...rest].find((u) => u.id === bob.accountId)!;
    expect(bobView.wallets.map((w) => [w.kind, w.address]).sort()).toEqual(
      [
        ["evm", bob.address.toLowerCase()],
        ["solana", solana.address],
      ].sort(),
    );
    expect(first.text + second.text).not.toMatch(/token|usr_|ases_/);
  });

  it("happy: kind=wallet&wallet= finds the account holding an EVM (any case) or a Solana wallet", async () => {
    const byEvm = await get(`?kind=wallet&wallet=${alice.address.toUpperCase().replace("0X", "0x")}`);
    expect((byEvm.json.users as WalletUser[]).map((u) => u.id)).toEqual([alice.accountId]);
    const bySolana = await get(`?kind=wallet&wallet=${solana.address}`);
    expect((bySolana.json.users as WalletUser[]).map((u) => u.id)).toEqual([bob.accountId]);
    const none = await get(`?kind=wallet&wallet=0x${"1".repeat(40)}`);
    expect(none.json.users).toEqual([]);
  });

  it("error: bad limits, cursors, kinds and mismatched filters are 400 problem+json", async () => {
    const adminPage = await get("?limit=1");
    for (const query of [
      "?limit=0",
      "?cursor=abc",
      `?cursor=${Buffer.from('["1","mrch_x"]').toString("base64url")}`,
      `?kind=wallet&cursor=${String(adminPage.json.next_cursor)}`,
      "?kind=merchant",
      "?kind=__proto__",
      "?kind=wallet&role=owner",
      `?wallet=${solana.address}`,
      "?kind=wallet&wallet=0xabc",
      "?kind=wallet&wallet=%00",
      "?disabled=yes",
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("security: no session, a merchant secret or a wallet user's session is 401", async () => {
    const merchant = await registerMerchant(api);
    expect((await get("", {})).status).toBe(401);
    expect((await get("", bearer(merchant.secret))).status).toBe(401);
    expect((await get("?kind=wallet", alice.headers)).status).toBe(401);
    expect((await get("?kind=wallet", { cookie: alice.cookie })).status).toBe(401);
  });
});
