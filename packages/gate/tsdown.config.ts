/**
 * Publish build (docs/publishing.md, docs/decisions/0061): ESM + bundled .d.ts + source maps in dist/. The
 * private workspace packages (@tollgate/shared, @tollgate/webhooks) are devDependencies, so they are bundled in,
 * types included; every third-party import stays external and must be a dependency or peer of this package.
 */
import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts", testing: "src/testing.ts" },
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
