/**
 * `pnpm start` three times on one data directory (docs/decisions/0058), real processes throughout: between starts
 * the demo agent pays (the `pnpm demo` code path, `--api-origin`) and an x402 agent pays the demo bridge provider on
 * polygon. After every start: the chains were kept, every earlier payment is still indexed and listed and still on
 * chain, its receipt still answers, `/readyz` is ready, the bridge reaches the demo upstream on its new port, the
 * webhooks for the new payment arrive, and the banner reflects whether an operator exists.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, x402AssetsFromManifest } from "@tollgate/agent";
import { parseDeploymentManifest } from "@tollgate/shared";
import { freePort } from "@tollgate/shared/test-process";
import { createPublicClient, type Hex, http as viemHttp } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch } from "./launch";

const DEMO_AGENT = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";
/** Hardhat development account #8 (a public, well-known key, funded on the local chains). */
const x402Payer = privateKeyToAccount("0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97");
const agentDir = join(import.meta.dirname, "../../agent");

/** Polls `check` until it answers a value (not undefined); fails with `what` after 60 s. */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** `pnpm demo --api-origin <url>`: the agent package's demo script, as pnpm runs it. */
function runDemo(dataDir: string, apiOrigin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/demo.ts", "--api-origin", apiOrigin], {
      cwd: agentDir,
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      output += String(chunk);
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`pnpm demo: ${code}\n${output}`)),
    );
  });
}

interface Delivery {
  type: string;
  data: Record<string, unknown>;
}

describe("pnpm start, stopped and started again on the same data directory", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-restart-"));
  const deliveries: Delivery[] = [];
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += String(chunk);
    });
    req.on("end", () => {
      deliveries.push(JSON.parse(body) as Delivery);
      res.writeHead(204).end();
    });
  });
  beforeAll(() => new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve)));
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every payment across three starts; new payments are indexed and notified; the bridge follows its upstream", async () => {
    const [port, examplePort] = [await freePort(), await freePort()];
    const baseUrl = `http://127.0.0.1:${port}`;
    const passwordFile = join(dataDir, "operator-password");
    writeFileSync(passwordFile, "restart test password 1\n");
    const paid: { tx: Hex; receipt: string }[] = [];
    const x402Paid: Hex[] = [];

    for (let run = 0; run < 3; run++) {
      const stack = launch(
        process.execPath,
        ["--import", "tsx", "src/main.ts"],
        join(import.meta.dirname, ".."),
        {
          PATH: process.env.PATH,
          DATA_DIR: dataDir,
          PORT: String(port),
          CHAINS_BASE_PORT: "0",
          EXAMPLE_MERCHANT_PORT: String(examplePort),
          LOG_LEVEL: "warn",
          SERVE_CONSOLE: "false",
          // From the second start on, an operator exists (created at that start).
          ...(run > 0
            ? { ADMIN_BOOTSTRAP_EMAIL: "owner@example.com", ADMIN_BOOTSTRAP_PASSWORD_FILE: passwordFile }
            : {}),
        },
      );
      try {
        await stack.seen("Tollgate is running");
        const output = stack.output();
        expect(output).not.toContain("started anew");
        if (run === 0) {
          expect(output).not.toContain("local chains kept");
          expect(output).toContain("run `pnpm admin:create");
        } else {
          expect(output).toMatch(/local chains kept from the data directory \(polygon: \d+ calls replayed/);
          expect(output).toContain(`Operators: sign in at ${baseUrl}/console/`);
          expect(output).not.toContain("pnpm admin:create");
        }
        const ready = await until("/readyz", async () => {
          const response = await fetch(`${baseUrl}/readyz`);
          return response.status === 200 ? ((await response.json()) as { status: string }) : undefined;
        });
        expect(ready.status).toBe("ready");

        const demo = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8")) as Record<string, string>;
        const manifest = parseDeploymentManifest(
          JSON.parse(readFileSync(join(dataDir, "deployments.json"), "utf8")),
        );
        if (run === 0) {
          const auth = { authorization: `Bearer ${demo.secret}`, "content-type": "application/json" };
          const updated = await fetch(`${baseUrl}/v1/merchants/${demo.merchant_id}`, {
            method: "PATCH",
            headers: auth,
            body: JSON.stringify({
              webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
            }),
          });
          expect(updated.status).toBe(200);
          const secret = await fetch(`${baseUrl}/v1/merchants/${demo.merchant_id}/webhook-secret`, {
            method: "POST",
            headers: auth,
          });
          expect(secret.status).toBe(200);
        }

        // Everything paid before this start: indexed, listed, on chain, its receipt answering.
        const listed = await until("earlier payments listed", async () => {
          const response = await fetch(`${baseUrl}/v1/agents/${DEMO_AGENT}/transactions?limit=100`);
          const body = (await response.json()) as { transactions: { tx_hash: string }[] };
          const hashes = body.transactions.map((t) => t.tx_hash);
          return paid.every((p) => hashes.includes(p.tx)) ? hashes : undefined;
        });
        expect(listed.length).toBeGreaterThanOrEqual(paid.length);
        for (const p of paid) expect((await fetch(`${baseUrl}/v1/receipts/${p.receipt}`)).status).toBe(200);
        const polygon = createPublicClient({ transport: viemHttp(manifest.chains.polygon!.rpcUrl) });
        for (const tx of x402Paid)
          expect((await polygon.getTransactionReceipt({ hash: tx })).status).toBe("success");

        // A new payment through `pnpm demo --api-origin`: listed, and its webhooks arrive.
        const out = await runDemo(dataDir, `${baseUrl}/`);
        const receipt = /receipt (rcpt_\w+)/.exec(out)?.[1];
        const tx = /settlement tx sent: (0x[0-9a-f]{64})/.exec(out)?.[1] as Hex | undefined;
        expect(receipt && tx, out).toBeTruthy();
        paid.push({ tx: tx!, receipt: receipt! });
        await until("receipt.issued webhook", async () =>
          deliveries.find((d) => d.type === "receipt.issued" && d.data.receipt_id === receipt)
            ? true
            : undefined,
        );
        await until("the new payment indexed", async () => {
          const response = await fetch(`${baseUrl}/v1/agents/${DEMO_AGENT}/transactions?limit=100`);
          const body = (await response.json()) as { transactions: { tx_hash: string }[] };
          return body.transactions.some((t) => t.tx_hash === tx) ? true : undefined;
        });

        // The bridge's x402 path on polygon reaches the demo upstream (on this start's port).
        const steps: { type: string; transaction?: string }[] = [];
        const agent = createAgent({
          account: x402Payer,
          chains: { 137: { rpcUrl: manifest.chains.polygon!.rpcUrl } },
          limits: {
            maxPerPaymentUsd: "1",
            budgetPerPeriod: { usd: "10", periodMs: 86_400_000 },
            allowedOrigins: [baseUrl],
          },
          x402Assets: x402AssetsFromManifest(manifest),
          onStep: (step) => {
            steps.push(step as { type: string; transaction?: string });
          },
        });
        const bridged = await agent.fetch(`${baseUrl}/bridge/demo-polygon/v1/echo?run=${run}`);
        expect(bridged.status).toBe(200);
        expect(await bridged.json()).toMatchObject({ upstream: "demo", path: "/v1/echo" });
        const settled = steps.find((s) => s.type === "x402_settled");
        expect(settled?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
        x402Paid.push(settled!.transaction as Hex);

        process.kill(-(stack.child.pid ?? 0), "SIGINT");
        expect(await stack.exited).toBe(0);
      } finally {
        stack.kill();
      }
    }
  });
});
