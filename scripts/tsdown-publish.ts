/**
 * The publish build shared by @tollgate/gate, @tollgate/agent and @tollgate/mcp (docs/publishing.md,
 * docs/decisions/0061-publishable-packages.md): ESM, bundled .d.ts and source maps in dist/. The private workspace
 * packages (@tollgate/shared, @tollgate/webhooks) are devDependencies, so they are bundled in, types included;
 * `onlyBundle: []` makes the build fail when any third-party import would be bundled, so each one must be a
 * dependency or peer of the package.
 */
import { defineConfig, type UserConfig } from "tsdown";

/** A package's publish build: its entries (name → source file); `bin` is the executable when there is one. */
export function publishBuild(entry: Record<string, string>): UserConfig {
  return defineConfig({
    entry,
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
}
