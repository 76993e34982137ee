/**
 * `pnpm --filter @tollgate/api bridge`: one bridge process (SPEC §4.5). Single-provider mode from UPSTREAM_URL,
 * PRICE_*, ROUTE_PATH, BRIDGE_MERCHANT_WALLET, ...; router mode when BRIDGE_PROVIDERS_FILE names a JSON file.
 * Prints its URLs once ready; exits 2 on a configuration error with a message naming the variable.
 */
import { handleShutdown } from "@tollgate/shared/shutdown";
import { startBridgeServer } from "../bridge-server";
import { EnvError } from "../env";
import { BridgeConfigError } from "../modules/bridge";

try {
  const shutdown = handleShutdown();
  const starting = startBridgeServer(process.env);
  shutdown.starting(starting);
  const bridge = await starting;
  shutdown.add("bridge", () => bridge.close());
  const paths =
    bridge.config.mode === "single"
      ? [`${bridge.url}${bridge.config.providers[0]?.routePath ?? "/"}`]
      : bridge.config.providers.map((p) => `${bridge.url}/${p.id}/`);
  process.stdout.write(
    `\n  Tollgate bridge (${bridge.config.mode}, ${bridge.config.network}, store ${bridge.router.bridge.store.kind})\n` +
      paths.map((p) => `  Paid route       ${p}\n`).join("") +
      `  Discovery        ${bridge.url}/.well-known/x402.json\n  Facilitator      ${bridge.url}/facilitator/supported\n\n`,
  );
} catch (error) {
  if (error instanceof BridgeConfigError || error instanceof EnvError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
