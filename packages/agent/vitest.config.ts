import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "agent",
    include: ["src/**/*.test.ts"],
    // One pool of deployed local chains for the run (docs/testing.md "Chains").
    globalSetup: ["../../contracts/src/chain-pool-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
