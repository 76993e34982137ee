import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

/** Component tests: jsdom + @testing-library/react. The browser test has its own project (vitest.browser.config.ts). */
export default defineConfig({
  // Relative globs resolve against this folder, also when run alone with --config.
  root: fileURLToPath(new URL(".", import.meta.url)),
  plugins: [react()],
  test: {
    name: "console",
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["./src/test-setup.ts"],
    // A test may wait on findBy* (up to 5 s, test-setup.ts) after a first render that is itself slow on a loaded
    // machine: the test's own bound is above the wait's. A bound, not a timing assertion.
    testTimeout: 30_000,
  },
});
