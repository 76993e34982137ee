import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { name: "devstack", include: ["src/**/*.test.ts"], testTimeout: 180_000 },
});
