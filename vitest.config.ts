import { defineConfig } from "vitest/config";

// One run covers every package; each project keeps its own environment and timeouts.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "contracts", "apps/console/vitest.browser.config.ts"],
  },
});
