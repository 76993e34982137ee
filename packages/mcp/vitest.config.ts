import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { name: "mcp", include: ["src/**/*.test.ts"], testTimeout: 300_000, hookTimeout: 400_000 },
});
