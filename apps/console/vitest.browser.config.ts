import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The browser test: the real API (PGlite) serves the built console and Debian Chromium drives it through
 * playwright-core. Node environment; it needs apps/console/dist (pnpm --filter @tollgate/console build).
 */
export default defineConfig({
  // Relative globs resolve against this folder, also when run alone with --config.
  root: fileURLToPath(new URL(".", import.meta.url)),
  test: {
    name: "console-browser",
    environment: "node",
    include: ["test/**/*.browser.test.ts"],
    // The run's pool of deployed local chains, shared with the other projects (docs/testing.md "Chains"); sets
    // start only when a file leases one.
    globalSetup: ["../../contracts/src/chain-pool-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
