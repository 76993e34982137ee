/**
 * Receipt keys in the database across API replicas (docs/keys.md): a fresh production install whose first key
 * signs at once, and a rotation driven through two API instances sharing the keys, on a real local chain.
 * Two app instances in this process share one database (PGlite, or PostgreSQL when TEST_DATABASE_URL is set).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseHandle } from "@tollgate/db";
import {
  type GateChallenge,
  JWKS_PATH,
  PAY_PATH,
  QUOTE_PATH,
  RECEIPT_JWT_TYPE,
  SETTLEMENT_CALL_JWS_TYPE,
} from "@tollgate/shared";
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, agentOn, type LocalChains, payChallenge, startTestChains } from "../../test/chains";
import {
  createTestDatabase,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";
import { wellKnownDevKeys } from "../chains";
import { rotateDatabaseReceiptKey } from "./receipt-key-database";
import { ReceiptKeysError, receiptKeyStatus } from "./receipt-keys";

/** Longer than the API's 5 s key reload (RECEIPT_KEYS_RELOAD_MS): every replica publishes before any signs. */
const LEAD_SECONDS = 7;

describe.each(storageDatabaseKinds("postgres"))("receipt keys shared by API replicas on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-replicas-"));
  const kek = randomBytes(32);
  let chains: LocalChains;
  let db: DatabaseHandle;
  let agent: Agent;
  let env: Record<string, string>;
  const apis: TestApi[] = [];

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
    for (const api of apis) await api.close();
    await db?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const api = await startTestApi(kind, env, { db });
    apis.push(api);
    return api;
  };

  async function jwksOf(api: TestApi): Promise<JSONWebKeySet> {
    const res = await api.call("GET", JWKS_PATH);
    expect(res.status).toBe(200);
    return res.json as unknown as JSONWebKeySet;
  }

  /** Quote and pay through `api`; throws with the body on any non-200 (a 503 fails the test). */
  const buyVia = (api: TestApi, merchantId: string) =>
    payChallenge(agent, {
      quote_url: `${api.baseUrl}${QUOTE_PATH}`,
      pay_url: `${api.baseUrl}${PAY_PATH}`,
      merchant_id: merchantId,
      resource: "/search",
      tier: "standard",
    } as GateChallenge);

  /** The settlement call's JWS and the receipt verify against the JWKS each replica serves now. */
  async function verifiesEverywhere(tokens: { receipt: string; call: string }, replicas: TestApi[]) {
    for (const replica of replicas) {
      const keys = createLocalJWKSet(await jwksOf(replica));
      await jwtVerify(tokens.receipt, keys, { typ: RECEIPT_JWT_TYPE });
      await jwtVerify(tokens.call, keys, { typ: SETTLEMENT_CALL_JWS_TYPE });
    }
  }

  let merchantId: string;

  it("a fresh production install refuses to start without keys; its first key signs at once", async () => {
    const refused = await start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ReceiptKeysError);
    expect((refused as ReceiptKeysError).code).toBe("keys_missing");

    // What `pnpm keys:rotate` does with RECEIPT_KEYS_STORE=database, with its default lead.
    const now = new Date();
    const first = await rotateDatabaseReceiptKey(db.db, kek, now, 335);
    expect(first!.first).toBe(true);
    expect(first!.activatesAt.getTime()).toBeLessThanOrEqual(now.getTime());

    const api = await start();
    expect(receiptKeyStatus(api.deps.keys, new Date())).toEqual({ ok: true, kid: first!.kid });
    const registered = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test", tiers: { standard: "0.05" } }),
    });
    expect(registered.status, registered.text).toBe(201);
    merchantId = String(registered.json.merchant_id);
    const bought = await buyVia(api, merchantId);
    expect(decodeProtectedHeader(bought.receipt).kid).toBe(first!.kid);
    await verifiesEverywhere({ receipt: bought.receipt, call: bought.quote.settlement_call.signature }, [
      api,
    ]);
  });

  it("a rotation through two replicas: no refusal, every receipt verifies against both replicas' JWKS", async () => {
    // The first replica, started by the test above (the refused start left nothing behind).
    const [a] = apis;
    const b = await start();
    const replicas = [a!, b];
    const before = receiptKeyStatus(b.deps.keys, new Date()).kid;
    const rotation = await rotateDatabaseReceiptKey(db.db, kek, new Date(), LEAD_SECONDS);
    expect(rotation!.retired).toEqual([before]);

    // Buy alternately through both replicas until each has signed with the new key (bounded by a count).
    const signedBy = new Map<string, Set<string>>([
      [a!.baseUrl, new Set()],
      [b.baseUrl, new Set()],
    ]);
    for (let round = 0; round < 200; round++) {
      const via = replicas[round % 2]!;
      const bought = await buyVia(via, merchantId);
      await verifiesEverywhere(
        { receipt: bought.receipt, call: bought.quote.settlement_call.signature },
        replicas,
      );
      signedBy.get(via.baseUrl)!.add(String(decodeProtectedHeader(bought.receipt).kid));
      if ([...signedBy.values()].every((kids) => kids.has(rotation!.kid))) break;
    }
    for (const kids of signedBy.values()) expect([...kids].sort()).toEqual([before, rotation!.kid].sort());
  }, 120_000);
});
