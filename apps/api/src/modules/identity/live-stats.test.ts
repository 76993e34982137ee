/**
 * GET /api/live-stats behind the identity gate: every row of the SPEC §5 table over real HTTP, a real
 * database nonce store (PGlite, and PostgreSQL with TEST_DATABASE_URL), a local Solana JSON-RPC read through
 * @solana/web3.js, and real Ed25519 signatures.
 */
import { createServer } from "node:net";
import { settlements } from "@tollgate/db";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { encodeSeat, SEAT_ACCOUNT_SIZE, seatAddress } from "./seat-program";
import { type LocalSolanaRpc, startLocalSolanaRpc } from "./solana-local-rpc";
import { CURRENT_AGREEMENT_HASH, DEFAULT_SEAT_PROGRAM, giveSeat, ManualClock, testAgent } from "./testing";

const PATH = "/api/live-stats";
const CHALLENGE_FIELDS = [
  "error",
  "protocol",
  "manifesto",
  "treasury_vault",
  "min_usd",
  "min_msecco",
  "idl_uri",
  "usdc_mint",
  "usdt_mint",
  "usdc_ata_treasury",
  "usdt_ata_treasury",
  "agreement_hash",
  "x-nonce",
  "x-nonce-expires",
];

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(storageDatabaseKinds("pglite"))("identity gate on GET /api/live-stats (%s)", (kind) => {
  let api: TestApi;
  let rpc: LocalSolanaRpc;
  const clock = new ManualClock();

  beforeAll(async () => {
    rpc = await startLocalSolanaRpc();
    api = await startTestApi(
      kind,
      { SOLANA_RPC_URL: rpc.url, IDENTITY_NONCES_PER_MINUTE: "10000" },
      { clock },
    );
  });
  afterAll(async () => {
    await api?.close();
    await rpc?.close();
  });

  const nonce = async () => {
    const response = await api.call("GET", "/nonce");
    expect(response.status).toBe(200);
    return String(response.json["x-nonce"]);
  };
  const seated = () => {
    const agent = testAgent();
    giveSeat(rpc, agent.publicKey);
    return agent;
  };

  it("without identity headers answers 402 with the SPEC §2.7 challenge and a fresh nonce", async () => {
    const response = await api.call("GET", PATH);
    expect(response.status).toBe(402);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(response.json.code).toBe("identity_required");
    for (const field of CHALLENGE_FIELDS) expect(response.json, field).toHaveProperty(field);
    expect(response.headers.get("x-nonce")).toBe(response.json["x-nonce"]);
    expect(response.headers.get("x-nonce-expires")).toBe(response.json["x-nonce-expires"]);
    expect(response.json["x-nonce-expires"]).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
    expect(response.json.min_msecco).toBe(0);
    expect(response.json.agreement_hash).toBe(CURRENT_AGREEMENT_HASH.toString("hex"));
    expect(response.json.idl_uri).toBe(`${api.baseUrl}/idl.json`);
  });

  it("answers 200 to a seated agent's signed nonce, then 402 when the same nonce comes back", async () => {
    const agent = seated();
    await api.deps.db.db.insert(settlements).values({
      chainId: 80002,
      network: "amoy",
      splitter: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
      splitterVersion: "v1.2",
      txHash: `0x${"ab".repeat(32)}`,
      logIndex: 0,
      blockNumber: 1n,
      blockHash: `0x${"2".repeat(64)}`,
      payer: "0x8ba1f109551bd432803012645ac136ddd64dba72",
      merchantAddress: "0x52908400098527886e0f7030069857d2e4169ee7",
      token: "0x0000000000000000000000000000000000000000",
      totalAmount: "1000000000000000000000",
      merchantAmount: "1",
      treasuryAmount: "0",
      ipCreatorAmount: "0",
      orderId: "ord_live",
      state: "confirmed",
      seenAt: new Date(clock.now().getTime() - 60_000),
      updatedAt: clock.now(),
    });
    const headers = agent.headers(await nonce());
    const ok = await api.call("GET", PATH, { headers });
    expect(ok.status).toBe(200);
    const hour = (ok.json.windows as { last_hour: Record<string, unknown>[] }).last_hour;
    expect(hour).toContainEqual(
      expect.objectContaining({
        network: "amoy",
        settlements: 1,
        volume: "1000000000000000000000",
        active_agents: 1,
      }),
    );
    const replay = await api.call("GET", PATH, { headers });
    expect(replay.status).toBe(402);
    expect(replay.json.code).toBe("identity_nonce_invalid");
    expect(replay.headers.get("x-nonce")).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it("refuses a nonce that was never issued (402)", async () => {
    const agent = seated();
    const response = await api.call("GET", PATH, {
      headers: agent.headers(bs58.encode(Buffer.alloc(16, 7))),
    });
    expect(response.status).toBe(402);
    expect(response.json.code).toBe("identity_nonce_invalid");
  });

  it("accepts a nonce at 59 s and refuses one at 61 s (injected clock)", async () => {
    const agent = seated();
    const early = await nonce();
    const late = await nonce();
    clock.advance(59_000);
    expect((await api.call("GET", PATH, { headers: agent.headers(early) })).status).toBe(200);
    clock.advance(2_000);
    const expired = await api.call("GET", PATH, { headers: agent.headers(late) });
    expect(expired.status).toBe(402);
    expect(expired.json.code).toBe("identity_nonce_invalid");
  });

  it("answers 403 to another key's signature and to a signature over the hex digest, without burning the nonce", async () => {
    const agent = seated();
    const other = testAgent();
    const n = await nonce();
    const forged = { ...agent.headers(n), "x-signature": other.headers(n, "tollgate")["x-signature"] ?? "" };
    const byOther = await api.call("GET", PATH, { headers: forged });
    expect(byOther.status).toBe(403);
    expect(byOther.json.code).toBe("identity_signature_invalid");
    const { createHash } = await import("node:crypto");
    const hexDigest = createHash("sha256").update(`tollgate-x402:${n}:${agent.pubkey}`).digest("hex");
    const overHex = await api.call("GET", PATH, {
      headers: { ...agent.headers(n), "x-signature": agent.signBytes(Buffer.from(hexDigest)) },
    });
    expect(overHex.status).toBe(403);
    const wrongPrefix = await api.call("GET", PATH, { headers: agent.headers(n, "other") });
    expect(wrongPrefix.status).toBe(403);
    // The rightful signer still gets in with the same nonce.
    expect((await api.call("GET", PATH, { headers: agent.headers(n) })).status).toBe(200);
  });

  it("answers 403 when the pubkey has no seat, and the nonce it signed is spent", async () => {
    const agent = testAgent();
    const headers = agent.headers(await nonce());
    const response = await api.call("GET", PATH, { headers });
    expect(response.status).toBe(403);
    expect(response.json.code).toBe("identity_seat_missing");
    giveSeat(rpc, agent.publicKey);
    expect((await api.call("GET", PATH, { headers })).status).toBe(402);
  });

  it("refuses a seat recorded for an older agreement with its own code", async () => {
    const agent = testAgent();
    giveSeat(rpc, agent.publicKey, { agreementHash: Buffer.alloc(32, 1) });
    const response = await api.call("GET", PATH, { headers: agent.headers(await nonce()) });
    expect(response.status).toBe(403);
    expect(response.json.code).toBe("identity_seat_outdated");
  });

  it("refuses a seat account holding another pubkey, owned by another program, or with a wrong discriminator", async () => {
    const cases: [string, (address: string, agent: ReturnType<typeof testAgent>) => void][] = [
      [
        "another pubkey",
        (address) => {
          const data = encodeSeat({
            agent: testAgent().publicKey,
            agreementHash: CURRENT_AGREEMENT_HASH,
            reservedAt: 0n,
            paymentKind: "sol",
            bump: 255,
          });
          rpc.ledger.set(address, {
            owner: DEFAULT_SEAT_PROGRAM.toBase58(),
            lamports: 1,
            data: data.toString("base64"),
          });
        },
      ],
      [
        "wrong owner",
        (address, agent) => {
          const data = encodeSeat({
            agent: agent.publicKey,
            agreementHash: CURRENT_AGREEMENT_HASH,
            reservedAt: 0n,
            paymentKind: "sol",
            bump: 255,
          });
          rpc.ledger.set(address, {
            owner: "11111111111111111111111111111111",
            lamports: 1,
            data: data.toString("base64"),
          });
        },
      ],
      [
        "wrong discriminator",
        (address, agent) => {
          const data = encodeSeat({
            agent: agent.publicKey,
            agreementHash: CURRENT_AGREEMENT_HASH,
            reservedAt: 0n,
            paymentKind: "sol",
            bump: 255,
          });
          data[0] = (data[0] ?? 0) ^ 0xff;
          rpc.ledger.set(address, {
            owner: DEFAULT_SEAT_PROGRAM.toBase58(),
            lamports: 1,
            data: data.toString("base64"),
          });
        },
      ],
      [
        "truncated data",
        (address, agent) => {
          const data = encodeSeat({
            agent: agent.publicKey,
            agreementHash: CURRENT_AGREEMENT_HASH,
            reservedAt: 0n,
            paymentKind: "sol",
            bump: 255,
          }).subarray(0, SEAT_ACCOUNT_SIZE - 10);
          rpc.ledger.set(address, {
            owner: DEFAULT_SEAT_PROGRAM.toBase58(),
            lamports: 1,
            data: data.toString("base64"),
          });
        },
      ],
    ];
    for (const [name, plant] of cases) {
      const agent = testAgent();
      plant(seatAddress(DEFAULT_SEAT_PROGRAM, agent.publicKey).address.toBase58(), agent);
      const response = await api.call("GET", PATH, { headers: agent.headers(await nonce()) });
      expect(response.status, name).toBe(403);
      expect(response.json.code, name).toBe("identity_seat_missing");
    }
  });

  it("answers 400 (never 500) to malformed base58 and wrong lengths", async () => {
    const agent = seated();
    const n = await nonce();
    const good = agent.headers(n);
    const bad: Record<string, string>[] = [
      { ...good, "x-agent-pubkey": "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl" },
      { ...good, "x-agent-pubkey": bs58.encode(Buffer.alloc(31, 9)) },
      { ...good, "x-agent-pubkey": bs58.encode(Buffer.alloc(33, 9)) },
      { ...good, "x-agent-pubkey": "" },
      { ...good, "x-signature": bs58.encode(Buffer.alloc(63, 9)) },
      { ...good, "x-signature": "not base58!" },
      { ...good, "x-signature": "1".repeat(5000) },
    ];
    for (const headers of bad) {
      const response = await api.call("GET", PATH, { headers });
      expect(response.status, JSON.stringify(headers)).toBe(400);
      expect(response.json.code).toBe("identity_header_malformed");
    }
    // None of these touched the nonce.
    expect((await api.call("GET", PATH, { headers: good })).status).toBe(200);
  });

  it("answers a malformed nonce like an unknown one: 402 with a fresh nonce (SPEC §5)", async () => {
    const agent = seated();
    const good = agent.headers(await nonce());
    for (const bad of ["nonce with spaces", "9".repeat(200), "0OIl", ""]) {
      const response = await api.call("GET", PATH, { headers: agent.headers(bad) });
      expect(response.status, bad).toBe(402);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.json.code, bad).toBe("identity_nonce_invalid");
      expect(response.headers.get("x-nonce")).toMatch(/^[1-9A-HJ-NP-Za-km-z]{16,22}$/);
      expect(response.json["x-nonce"]).toBe(response.headers.get("x-nonce"));
    }
    // The one issued before is untouched, and a fresh one from a refusal works.
    expect((await api.call("GET", PATH, { headers: good })).status).toBe(200);
  });

  it("gives exactly one 200 to parallel requests carrying one signed nonce", async () => {
    const agent = seated();
    const headers = agent.headers(await nonce());
    const responses = await Promise.all(Array.from({ length: 12 }, () => api.call("GET", PATH, { headers })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(11);
  });

  it("answers 503, never 200, when the Solana RPC is down", async () => {
    const down = await startTestApi(
      kind,
      { SOLANA_RPC_URL: `http://127.0.0.1:${await closedPort()}` },
      { clock, db: api.deps.db },
    );
    try {
      const agent = testAgent();
      giveSeat(rpc, agent.publicKey);
      const n = String((await down.call("GET", "/nonce")).json["x-nonce"]);
      const response = await down.call("GET", PATH, { headers: agent.headers(n) });
      expect(response.status).toBe(503);
      expect(response.json.code).toBe("solana_rpc_unavailable");
      expect(response.headers.get("retry-after")).toBeTruthy();
    } finally {
      await down.close();
    }
  }, 90_000);

  it("rate-limits nonce issuance per client (429)", async () => {
    const limited = await startTestApi(
      kind,
      { SOLANA_RPC_URL: rpc.url, IDENTITY_NONCES_PER_MINUTE: "2" },
      { clock, db: api.deps.db },
    );
    try {
      expect((await limited.call("GET", "/nonce")).status).toBe(200);
      expect((await limited.call("GET", PATH)).status).toBe(402);
      const third = await limited.call("GET", PATH);
      expect(third.status).toBe(429);
      expect(third.headers.get("x-nonce")).toBeNull();
    } finally {
      await limited.close();
    }
  }, 90_000);
});
