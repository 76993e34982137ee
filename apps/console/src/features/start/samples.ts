/**
 * The code and commands the Get started checklist shows (decision 0074), with the merchant's own values filled in.
 * The gate sample follows packages/gate/README.md; `samples.test.ts` type-checks it against the package itself, so
 * a change of the gate's options breaks that test instead of the merchant's first build.
 */

/** Hardhat development account #9 (the key `pnpm demo` pays with): public, funded only on the local chains. */
export const DEMO_AGENT_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
/** The example merchant's default port (`MERCHANT_PORT`, packages/gate/README.md). */
export const EXAMPLE_MERCHANT_PORT = 4021;

/** Strings go into the sample as JSON string literals, so no merchant value can break out of them. */
const literal = (value: string) => JSON.stringify(value);

/** An Express server selling one path through the gate middleware, for this merchant and this API. */
export function gateSample({ merchantId, apiBaseUrl }: { merchantId: string; apiBaseUrl: string }): string {
  return `import express from "express";
import { gate } from "@tollgate/gate";

const app = express();
app.get(
  "/v1/search",
  gate({ merchantId: ${literal(merchantId)}, tier: "standard", apiBaseUrl: ${literal(apiBaseUrl)} }),
  (req, res) => res.json({ results: [], left: req.aifp?.remaining }),
);
app.listen(${EXAMPLE_MERCHANT_PORT});
`;
}

/** Shell-quotes one argument (single quotes; a single quote inside is closed, escaped and reopened). */
const sh = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * A test paid call on the local chains of `pnpm start`, from the repository root: the example merchant gated for
 * this merchant, then the dev stack's funded demo agent paying it on the merchant's settlement network (its RPC
 * read from the dev stack's deployment manifest, `.tollgate/deployments.json`).
 */
export function testPaidCallCommands({
  merchantId,
  apiBaseUrl,
  network,
  chainId,
}: {
  merchantId: string;
  apiBaseUrl: string;
  network: string;
  chainId: number;
}): string {
  const rpc = `"${chainId}=$(node -p ${sh(`require('./.tollgate/deployments.json').chains[${JSON.stringify(network)}].rpcUrl`)})"`;
  return [
    "# 1. your gated API (the example merchant, selling /v1/search for you)",
    `TOLLGATE_MERCHANT_ID=${sh(merchantId)} TOLLGATE_API_URL=${sh(apiBaseUrl)} pnpm --filter @tollgate/gate example`,
    "# 2. in another terminal: the demo agent pays one call",
    `TOLLGATE_AGENT_PRIVATE_KEY=${DEMO_AGENT_KEY} pnpm --filter @tollgate/agent exec node bin/tollgate-agent.js pay \\`,
    `  ${sh(`http://127.0.0.1:${EXAMPLE_MERCHANT_PORT}/v1/search?q=tollgate`)} --api-origin ${sh(apiBaseUrl)} \\`,
    `  --network ${sh(network)} --rpc ${rpc} --max-usd 1 --store "$(mktemp -d)/agent-state.json"`,
    "",
  ].join("\n");
}
