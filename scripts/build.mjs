#!/usr/bin/env node
// The production build (docs/deploy.md "Build and release"; docs/decisions/0060-production-build-and-migrations.md):
// `pnpm build` first runs every workspace package's own `build` script (the console's Vite build among them), then
// this file bundles each entry point with esbuild into dist/ at the repository root:
//   dist/api/main.js  dist/indexer/main.js  dist/mcp/main.js  dist/migrate.js  dist/cli/<name>.js
// with source maps next to them, a copy of the migrations (dist/drizzle) and of the console (dist/console), and
// dist/build-info.json naming the third-party packages each bundle imports. Workspace code (@tollgate/*) is bundled;
// every third-party package stays external, resolved from node_modules at run time (native and wasm ones such as
// @node-rs/argon2 and @electric-sql/pglite cannot be bundled). scripts/release.mjs turns dist/ into a release folder.
import { cpSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");

/** Bundles by their depth under the release folder: `__TOLLGATE_RELEASE_ROOT__` (packages/shared/src/runtime-path.ts). */
const GROUPS = [
  {
    releaseRoot: "../..",
    entries: {
      "api/main": "apps/api/src/main.ts",
      "indexer/main": "apps/indexer/src/main.ts",
      "mcp/main": "packages/mcp/src/main.ts",
      "cli/admin-create": "apps/api/src/cli/admin-create.ts",
      "cli/admin-unlock": "apps/api/src/cli/admin-unlock.ts",
      "cli/keys-rotate": "apps/api/src/cli/rotate-receipt-key.ts",
      "cli/audit-verify": "apps/api/src/cli/audit-verify.ts",
      "cli/audit-export": "apps/api/src/cli/audit-export.ts",
      "cli/audit-prune": "apps/api/src/cli/audit-prune.ts",
      "cli/replay-webhook": "apps/indexer/src/cli/replay-webhook.ts",
      "cli/quote-signer": "contracts/scripts/quote-signer.ts",
    },
  },
  { releaseRoot: "..", entries: { migrate: "apps/api/src/cli/migrate.ts" } },
];

const builtins = new Set(builtinModules);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Every bare import but @tollgate/* stays an import, read from node_modules at run time (node's own modules too). */
const externalThirdParty = {
  name: "external-third-party",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === "entry-point" || args.path.startsWith("@tollgate/")) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const started = performance.now();
rmSync(dist, { recursive: true, force: true });
/** Per bundle (`api/main.js`), the third-party packages it imports. */
const externals = {};
for (const group of GROUPS) {
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: group.entries,
    outdir: dist,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.19",
    // Stack traces name the .ts files and lines (node --enable-source-maps); the sources stay out of the maps.
    sourcemap: "linked",
    sourcesContent: false,
    keepNames: true,
    define: { __TOLLGATE_RELEASE_ROOT__: JSON.stringify(group.releaseRoot) },
    plugins: [externalThirdParty],
    metafile: true,
    logLevel: "warning",
  });
  for (const [output, { entryPoint, imports }] of Object.entries(metafile.outputs)) {
    if (!entryPoint) continue;
    const names = imports
      .filter(
        (item) => item.external && !item.path.startsWith("node:") && !builtins.has(packageName(item.path)),
      )
      .map((item) => packageName(item.path));
    externals[relative("dist", output)] = [...new Set(names)].sort();
  }
}

cpSync(join(root, "packages/db/drizzle"), join(dist, "drizzle"), { recursive: true });
const consoleDist = join(root, "apps/console/dist");
if (existsSync(join(consoleDist, "index.html")))
  cpSync(consoleDist, join(dist, "console"), { recursive: true });
else
  console.warn("⚠ apps/console/dist is missing: the build has no console (run `pnpm build` from the root)");

writeFileSync(join(dist, "build-info.json"), `${JSON.stringify({ externals }, null, 2)}\n`);
const packages = new Set(Object.values(externals).flat());
console.log(
  `✔ built ${Object.keys(externals).length} entries into dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `${packages.size} third-party packages stay external`,
);
