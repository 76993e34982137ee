import { defineConfig } from "vitest/config";

// The build and release scripts (scripts/build.mjs, scripts/release.mjs) and what they produce.
export default defineConfig({
  test: { name: "release", include: ["*.test.ts"], testTimeout: 120_000, hookTimeout: 180_000 },
});
