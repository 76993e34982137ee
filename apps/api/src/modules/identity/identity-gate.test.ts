/**
 * The identity gate's signature check over real HTTP (SPEC §5; decisions 0017, 0068): degenerate Ed25519 keys
 * are refused before the nonce is touched, on PGlite and PostgreSQL (when TEST_DATABASE_URL is set), with the
 * nonces in the database and in Redis (when TEST_REDIS_URL is set).
 */
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, TEST_REDIS_URL, type TestApi, testDatabaseKinds } from "../../test/harness";
import { type LocalSolanaRpc, startLocalSolanaRpc } from "./solana-local-rpc";
import { giveSeat, IDENTITY_POINT_KEY, IDENTITY_POINT_SIGNATURE, testAgent } from "./testing";

// The nonce store: the database, and Redis too when TEST_REDIS_URL is set (decision 0017).
const setups = testDatabaseKinds().flatMap((kind) => [
  { name: `${kind}, nonces in the database`, kind, env: {} as Record<string, string> },
  ...(TEST_REDIS_URL ? [{ name: `${kind}, nonces in Redis`, kind, env: { REDIS_URL: TEST_REDIS_URL } }] : []),
]);

describe.each(setups)("identity gate signature check on $name", ({ kind, env }) => {
  let api: TestApi;
  let rpc: LocalSolanaRpc;
  beforeAll(async () => {
    rpc = await startLocalSolanaRpc();
    api = await startTestApi(kind, { SOLANA_RPC_URL: rpc.url, ...env });
  });
  afterAll(async () => {
    await api?.close();
    await rpc?.close();
  });

  const nonce = async () => String((await api.call("GET", "/nonce")).json["x-nonce"]);
  const gated = (headers: Record<string, string>) => api.call("GET", "/api/protocol-docs", { headers });
  const expectProblem = (res: Awaited<ReturnType<typeof gated>>, status: number, code: string) => {
    expect(res.status, res.text).toBe(status);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.json.code, res.text).toBe(code);
  };

  it("security: the identity point with R = identity, S = 0 is 403 even with a seat; its nonce stays live", async () => {
    // A seat for the degenerate key: without the strict check only the seat check stood in its way.
    giveSeat(rpc, new PublicKey(bs58.decode(IDENTITY_POINT_KEY)));
    const live = await nonce();
    const forged = await gated({
      "x-agent-pubkey": IDENTITY_POINT_KEY,
      "x-nonce": live,
      "x-signature": IDENTITY_POINT_SIGNATURE,
    });
    expectProblem(forged, 403, "identity_signature_invalid");
    expect(forged.json.detail).toMatch(/small-order or non-canonical/);
    // The refused attempt did not spend the nonce: a real, seated agent signs the same nonce and gets in.
    const agent = testAgent();
    giveSeat(rpc, agent.publicKey);
    const ok = await gated(agent.headers(live));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.agent).toBe(agent.pubkey);
    // And now it is spent.
    expectProblem(await gated(agent.headers(live)), 402, "identity_nonce_invalid");
  });

  it("security: a real key with a small-order R or an S >= L is 403 and leaves the nonce live", async () => {
    const agent = testAgent();
    giveSeat(rpc, agent.publicKey);
    const live = await nonce();
    const real = bs58.decode(agent.headers(live)["x-signature"]!);
    const smallR = Buffer.from(real);
    smallR.set(bs58.decode(IDENTITY_POINT_KEY), 0);
    // S + L: the same signature with a non-canonical scalar (a real S is < L, so S + L < 2^256).
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const s = BigInt(`0x${Buffer.from(real.subarray(32)).reverse().toString("hex")}`) + L;
    const bigS = Buffer.concat([
      real.subarray(0, 32),
      Buffer.from(s.toString(16).padStart(64, "0"), "hex").reverse(),
    ]);
    for (const signature of [smallR, bigS]) {
      const res = await gated({ ...agent.headers(live), "x-signature": bs58.encode(signature) });
      expectProblem(res, 403, "identity_signature_invalid");
    }
    expect((await gated(agent.headers(live))).status).toBe(200);
  });
});
