import { defineConfig } from "vitest/config";

// Contract tests run against Hardhat's in-process network (one per test file, in its own fork:
// the EDR native module is not meant to be shared across worker threads).
export default defineConfig({
  test: {
    name: "contracts",
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
