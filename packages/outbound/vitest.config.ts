import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { name: "outbound", include: ["src/**/*.test.ts"], testTimeout: 15_000 },
});
