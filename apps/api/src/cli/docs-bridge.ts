/**
 * Development tool: refreshes the verbatim 402 in docs/bridge.md from a real run (bridge/captured-402.ts).
 * Starts a local amoy chain, a scriptable upstream and a bridge on loopback with its channels' database (as in the
 * API, so the 402 lists every scheme the bridge offers: `exact`, `upto`, `batch-settlement`), sends the documented
 * request, and rewrites the section between the `captured-402` markers. Run: `pnpm --filter @tollgate/api docs:bridge`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { REPO_ROOT } from "../env";
import {
  CAPTURE_REQUEST,
  capturedHeaders,
  renderCaptured402,
  replaceCaptured402,
} from "../modules/bridge/captured-402";
import { startTestBridge, startTestUpstream } from "../modules/bridge/testing";
import { decodeHeader } from "../modules/bridge/x402/wire";
import { startTestChains } from "../test/chains";
import { createTestDatabase } from "../test/harness";

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-docs-bridge-"));
const chains = await startTestChains(dataDir, ["amoy"]);
const upstream = await startTestUpstream();
const database = await createTestDatabase("pglite");
const bridge = await startTestBridge(
  chains,
  [
    {
      id: "acme",
      description: "Acme search",
      upstream_url: `${upstream.url}/api`,
      auth_style: "x-api-key",
      api_key: "upstream-secret",
      price_wei: (10n ** 15n).toString(),
      price_usdc_units: "150000",
      merchant_wallet: privateKeyToAccount(generatePrivateKey()).address,
    },
  ],
  {},
  { channels: { database } },
);
try {
  const response = await fetch(`${bridge.url}${CAPTURE_REQUEST.path}`, {
    method: CAPTURE_REQUEST.method,
    headers: { "content-type": "application/json" },
    body: CAPTURE_REQUEST.body,
  });
  const paymentRequired = response.headers.get("payment-required");
  if (response.status !== 402 || !paymentRequired) {
    throw new Error(`expected a 402 with PAYMENT-REQUIRED, got ${response.status}: ${await response.text()}`);
  }
  const section = renderCaptured402(
    {
      status: response.status,
      headers: capturedHeaders(response.headers),
      body: await response.json(),
      paymentRequired: decodeHeader(paymentRequired, "PAYMENT-REQUIRED"),
    },
    new Date().toISOString().slice(0, 10),
  );
  const docPath = join(REPO_ROOT, "docs", "bridge.md");
  writeFileSync(docPath, replaceCaptured402(readFileSync(docPath, "utf8"), section));
  console.log(`docs/bridge.md: captured 402 refreshed from ${bridge.url}${CAPTURE_REQUEST.path}`);
} finally {
  await bridge.close();
  await upstream.close();
  await database.close();
  await chains.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
