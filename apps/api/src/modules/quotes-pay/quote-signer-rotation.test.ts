/**
 * Quote signer rotation on a real local chain (docs/keys.md "Quote signers"): grant the new signer's role with the
 * admin key from a file, switch the API to the new key, revoke the old one. Quotes the old signer made stay payable
 * while its role stands and are refused on chain once it is revoked.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HARDHAT_PRIVATE_KEYS } from "@tollgate/contracts/deploy";
import {
  grantQuoteSigner,
  QuoteSignerError,
  quoteSignerStatus,
  readAdminKeyFile,
  revokeQuoteSigner,
} from "@tollgate/contracts/quote-signer";
import { PAY_PATH, QUOTE_PATH, type QuoteResponse } from "@tollgate/shared";
import { spawnTsx } from "@tollgate/shared/test-process";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Agent,
  agentOn,
  type LocalChains,
  payBody,
  sendSettlement,
  startTestChains,
} from "../../test/chains";
import { registrationBody, startTestApi, type TestApi } from "../../test/harness";

const CONTRACTS_DIR = join(import.meta.dirname, "..", "..", "..", "..", "..", "contracts");

describe("quote signer rotation: grant, switch, revoke", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-quote-signer-"));
  const adminKeyFile = join(dataDir, "admin.key");
  const newSignerKey = generatePrivateKey();
  const newSigner = privateKeyToAccount(newSignerKey).address;
  let chains: LocalChains;
  let agent: Agent;
  let target: { network: "amoy"; rpcUrl: string; manifestPath: string };
  let oldApi: TestApi;
  let newApi: TestApi | undefined;
  let oldSigner: `0x${string}`;
  let merchantId: string;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    const amoy = chains.chains[0]!;
    agent = agentOn(amoy, 13);
    target = { network: "amoy", rpcUrl: amoy.rpcUrl, manifestPath: chains.manifestPath! };
    oldSigner = chains.manifest.chains.amoy!.roles.quoteSigner as `0x${string}`;
    // The local chains' admin is Hardhat account #0 (docs/local-chains.md); its key lives in a 0600 file.
    writeFileSync(adminKeyFile, `${HARDHAT_PRIVATE_KEYS[0]}\n`, { mode: 0o600 });
    oldApi = await startTestApi("pglite", {
      DATA_DIR: dataDir,
      CONFIRMATIONS_AMOY: "1",
      QUOTE_SIGNER_PRIVATE_KEY: HARDHAT_PRIVATE_KEYS[3],
    });
    const registered = await oldApi.call("POST", "/v1/merchants", {
      body: registrationBody({
        network_mode: "test",
        settlement_version: "1.4",
        tiers: { standard: "0.05" },
      }),
    });
    expect(registered.status, registered.text).toBe(201);
    merchantId = String(registered.json.merchant_id);
  }, 120_000);
  afterAll(async () => {
    await newApi?.close();
    await oldApi?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function quoteFrom(api: TestApi): Promise<QuoteResponse> {
    const res = await api.call("POST", QUOTE_PATH, {
      body: { merchant_id: merchantId, resource: "/search", tier: "standard", payer: agent.address },
    });
    expect(res.status, res.text).toBe(200);
    const quote = res.json as unknown as QuoteResponse;
    expect(quote.settlement_version).toBe("1.4");
    return quote;
  }

  async function pay(api: TestApi, quote: QuoteResponse): Promise<number> {
    const tx = await sendSettlement(agent, quote.settlement_call);
    const key = `rotation-${quote.quote_id}`;
    const res = await api.call("POST", PAY_PATH, {
      body: await payBody(agent, quote, tx, key),
      headers: { "idempotency-key": key },
    });
    return res.status;
  }

  it("the admin key is read from a file only its owner can read", () => {
    chmodSync(adminKeyFile, 0o644);
    expect(() => readAdminKeyFile(adminKeyFile)).toThrow(QuoteSignerError);
    chmodSync(adminKeyFile, 0o600);
    expect(readAdminKeyFile(adminKeyFile)).toBe(HARDHAT_PRIVATE_KEYS[0]);
  });

  it("grant, switch, revoke: old quotes stay payable until the old role is revoked", async () => {
    const adminKey = readAdminKeyFile(adminKeyFile);
    const oldQuotes = [await quoteFrom(oldApi), await quoteFrom(oldApi)];

    // 1. Grant the new signer; the manifest lists both.
    const granted = await grantQuoteSigner(target, adminKey, newSigner);
    expect(granted.txHash).toBeDefined();
    expect(granted.signers).toEqual([oldSigner, newSigner]);
    expect(await quoteSignerStatus(target)).toEqual([
      { address: oldSigner, onChain: true, inManifest: true },
      { address: newSigner, onChain: true, inManifest: true },
    ]);

    // 2. Switch: the API restarts on the new key (same data, the updated manifest).
    newApi = await startTestApi(
      "pglite",
      { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1", QUOTE_SIGNER_PRIVATE_KEY: newSignerKey },
      { db: oldApi.deps.db },
    );
    const newQuote = await quoteFrom(newApi);
    expect(await pay(newApi, newQuote)).toBe(200);
    // A quote the old signer made before the switch is still payable: its role stands.
    expect(await pay(newApi, oldQuotes[0]!)).toBe(200);

    // 3. Revoke the old signer (after QUOTE_TTL_SECONDS in production): its unpaid quote now reverts on chain.
    const revoked = await revokeQuoteSigner(target, adminKey, oldSigner);
    expect(revoked.signers).toEqual([newSigner]);
    const manifest = JSON.parse(readFileSync(target.manifestPath, "utf8"));
    expect(manifest.chains.amoy.splitters["v1.4"].signers).toEqual([newSigner]);
    expect(await quoteSignerStatus(target, [oldSigner])).toEqual([
      { address: newSigner, onChain: true, inManifest: true },
      { address: oldSigner, onChain: false, inManifest: false },
    ]);
    await expect(sendSettlement(agent, oldQuotes[1]!.settlement_call)).rejects.toThrow(
      /InvalidSigner|revert/i,
    );
    expect(await pay(newApi, await quoteFrom(newApi))).toBe(200);

    // The last signer holding the role is never revoked.
    await expect(revokeQuoteSigner(target, adminKey, newSigner)).rejects.toThrow(/only signer/);
  }, 120_000);

  it("the command an operator runs: status, an idempotent grant, a refused revoke", async () => {
    // `pnpm keys:quote-signer …` runs this script in contracts/; relative paths are the caller's (INIT_CWD).
    const cli = async (...args: string[]) => {
      const run = spawnTsx(CONTRACTS_DIR, "scripts/quote-signer.ts", { INIT_CWD: dataDir }, [
        ...args,
        "--network",
        "amoy",
        "--rpc",
        target.rpcUrl,
        "--manifest",
        "deployments.json",
      ]);
      return { code: await run.exited, output: run.output().trim() };
    };
    const status = await cli("status", "--address", oldSigner);
    expect(status.code, status.output).toBe(0);
    expect(status.output.split("\n")).toEqual([
      `${newSigner}  role on chain: yes  in manifest: yes`,
      `${oldSigner}  role on chain: no  in manifest: no`,
    ]);
    const grant = await cli("grant", "--admin-key-file", "admin.key", "--address", newSigner);
    expect(grant.code, grant.output).toBe(0);
    expect(grant.output).toContain("(already so; no transaction)");
    const revoke = await cli("revoke", "--admin-key-file", "admin.key", "--address", newSigner);
    expect(revoke.code).toBe(2);
    expect(revoke.output).toMatch(/^0x[0-9a-fA-F]{40} is the only signer holding SIGNER_ROLE/);
  }, 120_000);
});
