import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { name: "db", include: ["src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 },
});
