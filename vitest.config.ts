import { defineConfig } from "vitest/config";

// One run covers every package; each project keeps its own environment and timeouts.
// Two files at a time: the suites wait on sockets, chains and databases as much as on the CPU, so a second worker
// keeps a 2-core machine busy (vitest's default is one worker fewer than the cores). docs/testing.md "Tiers".
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      "packages/*",
      "apps/*",
      "contracts",
      "scripts",
      "deploy",
      "apps/console/vitest.browser.config.ts",
    ],
  },
});
