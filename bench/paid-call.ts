/**
 * Service-side time of one paid call (issue 4 benchmark): quote + pay + gated request, with the chain's block
 * time excluded (the settlement transaction is sent between the timed phases). A plain request to the same
 * merchant server is measured in the same run as the baseline. Run: pnpm exec tsx bench/paid-call.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registrationBody, startTestApi, testDatabaseKinds } from "@tollgate/api/testing";
import { agentOn, payBody, sendSettlement, startTestChains } from "@tollgate/api/testing/chains";
import { gate } from "@tollgate/gate";
import { express } from "@tollgate/gate/testing";
import type { QuoteResponse } from "@tollgate/shared/aifp";
import { percentile, table } from "./lib";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-paid-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const agent = agentOn(chains.chains[0]!, 15);
const rows: Record<string, string | number>[] = [];

try {
  for (const kind of testDatabaseKinds()) {
    const api = await startTestApi(kind, {
      DATA_DIR: dataDir,
      CONFIRMATIONS_AMOY: "1",
      RATE_LIMIT_QUOTES_PER_MINUTE: "1000000",
    });
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ network_mode: "test" }),
    });
    const merchantId = String(created.json.merchant_id);
    const app = express();
    app.get("/plain", (_req, res) => {
      res.json({ ok: true });
    });
    app.get("/v1/search", gate({ merchantId, tier: "standard", apiBaseUrl: api.baseUrl }), (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const shop = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const phases: Record<string, number[]> = {
      quote: [],
      pay: [],
      "gated request": [],
      "service total": [],
      "plain request": [],
    };
    try {
      for (let i = 0; i < ITERATIONS + 3; i++) {
        const warmup = i < 3;
        let t = performance.now();
        const quoteResponse = await fetch(`${api.baseUrl}/v1/quote`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            merchant_id: merchantId,
            resource: "/v1/search",
            tier: "standard",
            payer: agent.address,
          }),
        });
        const quote = (await quoteResponse.json()) as QuoteResponse;
        const quoteMs = performance.now() - t;
        const tx = await sendSettlement(agent, quote.settlement_call); // block time: not measured
        const key = `bench-${quote.quote_id}`;
        const body = JSON.stringify(await payBody(agent, quote, tx, key)); // agent-side signing: not measured
        t = performance.now();
        const paid = await fetch(`${api.baseUrl}/v1/pay`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": key },
          body,
        });
        const { receipt } = (await paid.json()) as { receipt: string };
        const payMs = performance.now() - t;
        t = performance.now();
        const gated = await fetch(`${shop}/v1/search`, { headers: { "AIFP-Receipt": receipt } });
        await gated.arrayBuffer();
        const gatedMs = performance.now() - t;
        if (gated.status !== 200) throw new Error(`gated request answered ${gated.status}`);
        t = performance.now();
        await (await fetch(`${shop}/plain`)).arrayBuffer();
        const plainMs = performance.now() - t;
        if (warmup) continue;
        phases.quote!.push(quoteMs);
        phases.pay!.push(payMs);
        phases["gated request"]!.push(gatedMs);
        phases["service total"]!.push(quoteMs + payMs + gatedMs);
        phases["plain request"]!.push(plainMs);
      }
    } finally {
      server.closeAllConnections();
      server.close();
      await api.close();
    }
    for (const [phase, samples] of Object.entries(phases)) {
      samples.sort((a, b) => a - b);
      rows.push({
        database: kind,
        phase,
        "p50 ms": percentile(samples, 50),
        "p99 ms": percentile(samples, 99),
        samples: samples.length,
      });
    }
  }
} finally {
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(`\nOne paid call, service side (sequential, ${ITERATIONS} calls; tx send and mining excluded)\n`);
console.log(table(rows));
