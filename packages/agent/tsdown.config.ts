/**
 * Publish build (docs/publishing.md, docs/decisions/0061): ESM + bundled .d.ts + source maps in dist/. The
 * private workspace package @tollgate/shared is a devDependency, so it is bundled in, types included; every
 * third-party import stays external and must be a dependency of this package. dist/bin.js is the executable.
 */
import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts", bin: "src/bin.ts" },
  format: "esm",
  platform: "node",
  target: "node20.19",
  fixedExtension: false,
  dts: true,
  tsconfig: "tsconfig.build.json",
  sourcemap: true,
  deps: { onlyBundle: [] },
  failOnWarn: true,
});
