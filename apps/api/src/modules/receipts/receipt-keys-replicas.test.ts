/**
 * Receipt keys in the database across API replicas (docs/keys.md): a fresh production install whose first key
 * signs at once, and a rotation driven through two API replicas sharing the keys, on a real local chain.
 * On PostgreSQL (TEST_DATABASE_URL) the replicas are two real API processes; on PGlite, which one process owns,
 * two app instances in this process share the database.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestDatabaseHandle } from "@tollgate/db/testing";
import {
  type GateChallenge,
  JWKS_PATH,
  PAY_PATH,
  QUOTE_PATH,
  RECEIPT_JWT_TYPE,
  SETTLEMENT_CALL_JWS_TYPE,
} from "@tollgate/shared";
import { freePort } from "@tollgate/shared/test-process";
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiProcess } from "../../test/api-process";
import { type Agent, agentOn, type LocalChains, payChallenge, startTestChains } from "../../test/chains";
import { createTestDatabase, registrationBody, startTestApi, storageDatabaseKinds } from "../../test/harness";
import { wellKnownDevKeys } from "../chains";
import { rotateDatabaseReceiptKey } from "./receipt-key-database";

/** Longer than the API's 5 s key reload (RECEIPT_KEYS_RELOAD_MS): every replica publishes before any signs. */
const LEAD_SECONDS = 7;

interface Replica {
  baseUrl: string;
  close(): Promise<void>;
}

describe.each(storageDatabaseKinds("postgres"))("receipt keys shared by API replicas on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-replicas-"));
  const kek = randomBytes(32);
  let chains: LocalChains;
  let db: TestDatabaseHandle;
  let agent: Agent;
  let env: Record<string, string>;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    db = await createTestDatabase(kind);
    agent = agentOn(chains.chains[0]!, 12);
    const signer = chains.manifest.chains.amoy!.roles.quoteSigner.toLowerCase();
    env = {
      DATA_DIR: dataDir,
      NODE_ENV: "production",
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      RECEIPT_KEYS_STORE: "database",
      RECEIPT_KEYS_KEK: kek.toString("base64"),
      QUOTE_SIGNER_PRIVATE_KEY: wellKnownDevKeys().get(signer)!,
      CONFIRMATIONS_AMOY: "1",
    };
  }, 120_000);
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await db?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A replica on the shared database: a real API process on PostgreSQL, an app instance here on PGlite. */
  async function startReplica(): Promise<Replica> {
    let replica: Replica;
    if (db.url) {
      const started = await startApiProcess(await freePort(), { ...env, DATABASE_URL: db.url });
      replica = { baseUrl: started.baseUrl, close: async () => void (await started.kill("SIGTERM")) };
    } else {
      const api = await startTestApi(kind, env, { db });
      replica = { baseUrl: api.baseUrl, close: () => api.close() };
    }
    replicas.push(replica);
    return replica;
  }

  async function jwksOf(replica: Replica): Promise<JSONWebKeySet> {
    const res = await fetch(`${replica.baseUrl}${JWKS_PATH}`);
    expect(res.status).toBe(200);
    return (await res.json()) as JSONWebKeySet;
  }

  /** Quote and pay through `replica`; throws with the body on any non-200 (a 503 fails the test). */
  const buyVia = (replica: Replica, merchantId: string) =>
    payChallenge(agent, {
      quote_url: `${replica.baseUrl}${QUOTE_PATH}`,
      pay_url: `${replica.baseUrl}${PAY_PATH}`,
      merchant_id: merchantId,
      resource: "/search",
      tier: "standard",
    } as GateChallenge);

  /** The settlement call's JWS and the receipt verify against the JWKS each replica serves now. */
  async function verifiesEverywhere(tokens: { receipt: string; call: string }, everywhere: Replica[]) {
    for (const replica of everywhere) {
      const keys = createLocalJWKSet(await jwksOf(replica));
      await jwtVerify(tokens.receipt, keys, { typ: RECEIPT_JWT_TYPE });
      await jwtVerify(tokens.call, keys, { typ: SETTLEMENT_CALL_JWS_TYPE });
    }
  }

  let merchantId: string;
  let firstKid: string;

  it("a fresh production install refuses to start without keys; its first key signs at once", async () => {
    await expect(startReplica()).rejects.toThrow(/no receipt signing keys in the database/);

    // What `pnpm keys:rotate` does with RECEIPT_KEYS_STORE=database, with its default lead.
    const now = new Date();
    const first = await rotateDatabaseReceiptKey(db.db, kek, now, 335);
    expect(first!.first).toBe(true);
    expect(first!.activatesAt.getTime()).toBeLessThanOrEqual(now.getTime());
    firstKid = first!.kid;

    const replica = await startReplica();
    const registered = await fetch(`${replica.baseUrl}/v1/merchants`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(registrationBody({ network_mode: "test", tiers: { standard: "0.05" } })),
    });
    const body = (await registered.json()) as { merchant_id: string };
    expect(registered.status, JSON.stringify(body)).toBe(201);
    merchantId = body.merchant_id;
    const bought = await buyVia(replica, merchantId);
    expect(decodeProtectedHeader(bought.receipt).kid).toBe(firstKid);
    await verifiesEverywhere({ receipt: bought.receipt, call: bought.quote.settlement_call.signature }, [
      replica,
    ]);
  });

  it("a rotation through two replicas: no refusal, every receipt verifies against both replicas' JWKS", async () => {
    const [a] = replicas;
    const b = await startReplica();
    const both = [a!, b];
    const rotation = await rotateDatabaseReceiptKey(db.db, kek, new Date(), LEAD_SECONDS);
    expect(rotation!.retired).toEqual([firstKid]);

    // Buy alternately through both replicas until each has signed with the new key (bounded by a count).
    const signedBy = new Map<Replica, Set<string>>(both.map((replica) => [replica, new Set()]));
    for (let round = 0; round < 200; round++) {
      const via = both[round % 2]!;
      const bought = await buyVia(via, merchantId);
      await verifiesEverywhere(
        { receipt: bought.receipt, call: bought.quote.settlement_call.signature },
        both,
      );
      signedBy.get(via)!.add(String(decodeProtectedHeader(bought.receipt).kid));
      if ([...signedBy.values()].every((kids) => kids.has(rotation!.kid))) break;
    }
    for (const kids of signedBy.values()) expect([...kids].sort()).toEqual([firstKid, rotation!.kid].sort());
  }, 120_000);
});
