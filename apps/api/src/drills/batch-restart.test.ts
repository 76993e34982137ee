/**
 * Drill: `kill -9` of the API serving an x402 `batch-settlement` channel (docs/sessions.md "Restarts and replicas";
 * docs/decisions/0091). The API runs as a child process with the bridge mounted, on a local amoy chain with the
 * session contracts and the channels in its database (PGlite in its data directory, and PostgreSQL when
 * TEST_DATABASE_URL is set); the stock `@x402/fetch` + `@x402/evm` client pays.
 * What must hold:
 * - killed right after a voucher was accepted: after a restart the channel's charged total is every accepted call,
 *   the last voucher replayed is refused with the corrective 402, and the client pays on;
 * - killed while a call is with the upstream (its voucher reserved, not committed): that call is not charged, its
 *   reservation refuses the channel (`channel_busy`) only until it expires, then the client pays on;
 * - the claim worker of the restarted process claims exactly the sum of the accepted calls' prices on chain and
 *   sweeps it to the merchant: nothing charged twice, nothing lost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, type DatabaseKind, openDatabase } from "@tollgate/db";
import { freePort } from "@tollgate/shared/test-process";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomAddress, startTestUpstream, type TestUpstream } from "../modules/bridge/testing";
import { type ApiProcess, startApiProcess } from "../test/api-process";
import { agentOn, type LocalChains, startTestChains } from "../test/chains";
import { createTestDatabase, testDatabaseKinds } from "../test/harness";
import {
  chainReads,
  channelRow,
  drillPayer,
  settleReason,
  until,
  voucherOf,
  writeProviders,
} from "./batch-drill";

const PRICE = 40_000n;
const DEPOSIT = 1_000_000n;
const BUSY = "invalid_batch_settlement_evm_channel_busy";
const STALE = "invalid_batch_settlement_evm_cumulative_amount_mismatch";

describe.each(testDatabaseKinds())(
  "drill: kill -9 of the API serving a batch-settlement channel (%s)",
  (kind) => {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-batch-restart-"));
    let chains: LocalChains;
    let upstream: TestUpstream;
    let database: (DatabaseHandle & { url?: string }) | undefined;
    let api: ApiProcess | undefined;
    let port: number;
    let providersFile: string;
    const merchant = randomAddress();

    const start = async (claimIntervalSeconds: number) => {
      api = await startApiProcess(port, {
        DATA_DIR: dataDir,
        ...(database?.url ? { DATABASE_URL: database.url } : {}),
        BRIDGE_PROVIDERS_FILE: providersFile,
        CONFIRMATIONS_AMOY: "1",
        // The reservation of a call the kill interrupts lapses after the upstream timeout + settle margin (0091).
        BRIDGE_UPSTREAM_TIMEOUT_MS: "1000",
        BRIDGE_CHALLENGES_PER_MINUTE: "100000",
        BRIDGE_CLAIM_INTERVAL_SECONDS: String(claimIntervalSeconds),
      });
      return api;
    };

    beforeAll(async () => {
      chains = await startTestChains(dataDir, ["amoy"]);
      upstream = await startTestUpstream();
      if (kind === "postgres") database = await createTestDatabase(kind as DatabaseKind);
      providersFile = writeProviders(dataDir, upstream.url, PRICE, merchant);
      port = await freePort();
    }, 120_000);
    afterAll(async () => {
      await api?.kill("SIGKILL");
      await upstream?.close();
      await database?.close();
      await chains?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("nothing charged twice, nothing lost: vouchers survive kill -9, a killed reservation lapses, claims match", async () => {
      const chain = chains.chains[0]!;
      const usdc = chains.manifest.chains.amoy!.tokens.USDC!.address as Address;
      const reads = chainReads(chain, usdc);
      const payer = drillPayer(agentOn(chain, 16), usdc, DEPOSIT);
      const url = (q: string) => `http://127.0.0.1:${port}/bridge/acme/search?q=${q}`;
      const paid = async (q: string) => {
        const response = await payer.fetch(url(q));
        const why = Buffer.from(response.headers.get("PAYMENT-RESPONSE") ?? "", "base64").toString("utf8");
        expect(response.status, `${q}: ${why}`).toBe(200);
        return response;
      };
      /** A bare retry of a recorded voucher: its status, 402 reason and the channel state the corrective 402 names. */
      const replay = async (header: string) => {
        const before = upstream.seen.length;
        const response = await fetch(url("replay"), { headers: { "PAYMENT-SIGNATURE": header } });
        const offer = JSON.parse(
          Buffer.from(response.headers.get("PAYMENT-REQUIRED") ?? "e30=", "base64").toString("utf8"),
        ) as {
          accepts?: { scheme: string; extra?: { channelState?: { chargedCumulativeAmount: string } } }[];
        };
        const batch = offer.accepts?.find((a) => a.scheme === "batch-settlement");
        return {
          status: response.status,
          reason: settleReason(response),
          charged: batch?.extra?.channelState?.chargedCumulativeAmount,
          served: upstream.seen.length !== before,
        };
      };

      // Life 1: a deposit and two vouchers, then kill -9 straight after the last voucher's answer.
      await start(86_400);
      for (const q of ["a", "b", "c"]) await paid(q);
      expect(payer.sent.map((s) => voucherOf(s.header!).type)).toEqual(["deposit", "voucher", "voucher"]);
      const channelId = voucherOf(payer.sent[0]!.header!).channelId;
      expect(await api!.kill("SIGKILL")).toBeNull();

      // Life 2: the three charges survived; the last voucher replayed is refused with the channel's state.
      await start(86_400);
      const lastAccepted = payer.sent.at(-1)!.header!;
      expect(await replay(lastAccepted)).toEqual({
        status: 402,
        reason: STALE,
        charged: (PRICE * 3n).toString(),
        served: false,
      });
      await paid("d");

      // A call held at the upstream with its voucher reserved: kill -9 before it is committed.
      let entered!: () => void;
      const atUpstream = new Promise<void>((resolve) => {
        entered = resolve;
      });
      upstream.onRequest = () => {
        upstream.onRequest = undefined;
        entered();
        return new Promise<void>(() => {});
      };
      const inFlight = payer.fetch(url("killed")).then(
        () => "answered",
        () => "no answer",
      );
      await atUpstream;
      expect(await api!.kill("SIGKILL")).toBeNull();
      expect(await inFlight).toBe("no answer");

      // Life 3, with the claim worker: the killed call's reservation refuses the channel until it lapses.
      await start(1);
      const refusals: (string | undefined)[] = [];
      await until(async () => {
        const response = await payer.fetch(url("after"));
        if (response.status === 200) return true;
        refusals.push(settleReason(response));
        return undefined;
      }, "the killed call's reservation to lapse");
      // Refused only as busy while the reservation lives: never served, never charged.
      expect(refusals.filter((reason) => reason !== BUSY)).toEqual([]);

      // Accepted: a, b, c, d and after (five prices); the killed call was served upstream but never charged.
      const charged = PRICE * 5n;
      const accepted = payer.sent.filter((s) => s.status === 200).map((s) => voucherOf(s.header!));
      expect(accepted.map((v) => BigInt(v.maxClaimableAmount))).toEqual(
        [1n, 2n, 3n, 4n, 5n].map((n) => n * PRICE),
      );
      await until(
        async () => ((await reads.channel(channelId)).totalClaimed === charged ? true : undefined),
        "the claim worker to claim the channel",
      );
      await until(
        async () => ((await reads.usdc(merchant)) === charged ? true : undefined),
        "the sweep to the merchant",
      );
      expect(await reads.channel(channelId)).toEqual({ balance: DEPOSIT, totalClaimed: charged });
      expect(await replay(payer.sent.at(-1)!.header!)).toMatchObject({
        status: 402,
        reason: STALE,
        charged: charged.toString(),
        served: false,
      });
      expect(await api!.kill("SIGTERM")).toBe(0);
      api = undefined;

      // The channel row agrees with the chain to the unit, nothing reserved.
      const held = database ?? (await openDatabase({ kind: "pglite", dataDir: join(dataDir, "pglite") }));
      try {
        const row = await channelRow(held, channelId as Hex);
        expect(row).toMatchObject({
          chargedCumulative: charged.toString(),
          totalClaimed: charged.toString(),
          signedMaxClaimable: charged.toString(),
          pendingId: null,
          claimId: null,
        });
      } finally {
        if (held !== database) await held.close();
      }
    }, 600_000);
  },
);
