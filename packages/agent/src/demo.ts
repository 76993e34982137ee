/**
 * `pnpm demo` (DESIGN.md §11): with `pnpm start` running, an agent (Hardhat development account #9, funded on
 * the local chains) pays for the example merchant's search and prints every step: 402, quote, transactions,
 * confirmations, receipt, paid response, quota left. It drives the same code as `tollgate-agent pay`.
 * `--api-origin <url>` names the API (default: the one `pnpm start` recorded); the example merchant and the chains come
 * from the data directory (`DATA_DIR/demo.json`, `DATA_DIR/deployments.json`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseDeploymentManifest } from "@tollgate/shared";
import { envDefault } from "@tollgate/shared/env";
import { z } from "zod";
import { runCli } from "./cli";

/** Hardhat development account #9: a public, well-known key, funded only on local chains. */
const DEMO_AGENT_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const env = z
  .object({
    DATA_DIR: envDefault(z.string(), ".tollgate"),
  })
  .parse(process.env);
let apiOrigin: string | undefined;
try {
  const { values } = parseArgs({ options: { "api-origin": { type: "string" } }, strict: true });
  apiOrigin =
    values["api-origin"] === undefined
      ? undefined
      : z.url({ protocol: /^https?$/ }).parse(values["api-origin"]);
} catch (error) {
  console.error(
    `usage: pnpm demo [--api-origin <http(s) url>]  (${error instanceof z.ZodError ? "not an http(s) URL" : (error as Error).message})`,
  );
  process.exit(2);
}
const dataDir = isAbsolute(env.DATA_DIR) ? env.DATA_DIR : resolve(REPO_ROOT, env.DATA_DIR);
const demoPath = join(dataDir, "demo.json");
if (!existsSync(demoPath)) {
  console.error(`No running demo found (${demoPath} is missing). Start everything first with: pnpm start`);
  process.exit(2);
}
const demo = JSON.parse(readFileSync(demoPath, "utf8")) as {
  api_base_url: string;
  example_merchant_url: string;
};
const manifest = parseDeploymentManifest(JSON.parse(readFileSync(join(dataDir, "deployments.json"), "utf8")));
const amoy = manifest.chains.amoy;
if (!amoy) {
  console.error("The deployment manifest has no amoy chain; restart with pnpm start");
  process.exit(2);
}
const store = mkdtempSync(join(tmpdir(), "tollgate-demo-"));
const url = `${demo.example_merchant_url}/v1/search?q=tollgate`;
console.log(`Agent ${"0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"} pays for ${url}\n`);
const code = await runCli(
  [
    "pay",
    url,
    "--api-origin",
    (apiOrigin ?? demo.api_base_url).replace(/\/+$/, ""),
    "--rpc",
    `${amoy.chainId}=${amoy.rpcUrl}`,
    "--network",
    "amoy",
    "--max-usd",
    "1",
    "--store",
    join(store, "agent-state.json"),
  ],
  {
    env: { TOLLGATE_AGENT_PRIVATE_KEY: DEMO_AGENT_KEY },
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
  },
);
rmSync(store, { recursive: true, force: true });
process.exit(code);
