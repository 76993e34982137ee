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
  },
});
