#!/usr/bin/env node
// `pnpm release <outdir>` after `pnpm build` (docs/deploy.md "Build and release";
// docs/decisions/0060-production-build-and-migrations.md): a self-contained production folder
//   <outdir>/package.json                 the release's runtime dependencies, exact versions, and its start scripts
//   <outdir>/node_modules/                production dependencies only, from the local pnpm store (offline)
//   <outdir>/dist/api/main.js ...         the bundles of dist/ (the MCP server, an agent-side tool, stays out)
//   <outdir>/dist/drizzle/, dist/console/ the migrations the migrate step reads and the console the API serves
// Each process is `node --enable-source-maps <outdir>/dist/<entry>.js` with the same environment as from source.
// The dependencies come from `pnpm deploy --prod` of @tollgate/api with the workspace lockfile, laid out flat
// (node-linker=hoisted) so that every package a bundle imports is reachable from dist/; @tollgate/* is dropped (the
// bundles carry it) and so is typescript (only an optional, type-only peer of viem and its kin).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");
/** What never belongs in a release: build and test tools. */
const DEV_TOOLS = ["tsx", "typescript", "vitest", "hardhat", "esbuild", "vite", "@biomejs/biome"];
/** Type-only peers that pnpm installs with their dependents; nothing imports them at run time. */
const TYPE_ONLY_PEERS = ["typescript"];
/** Bundles left out of the release. */
const NOT_RELEASED = ["mcp/"];

function fail(message) {
  console.error(`✖ ${message}`);
  process.exit(1);
}

const [target] = process.argv.slice(2);
if (!target) fail("usage: pnpm release <outdir>   (after pnpm build)");
// pnpm runs root scripts in the repository; INIT_CWD is where the operator typed the command.
const outdir = resolve(process.env.INIT_CWD ?? process.cwd(), target);
if (!existsSync(join(dist, "build-info.json")))
  fail("dist/ is missing or incomplete: run `pnpm build` first");
if (!existsSync(join(dist, "console", "index.html"))) fail("dist/console is missing: run `pnpm build` first");
if (existsSync(outdir) && readdirSync(outdir).length > 0) fail(`${outdir} exists and is not empty`);

const started = performance.now();
const { externals } = JSON.parse(readFileSync(join(dist, "build-info.json"), "utf8"));
const released = Object.keys(externals).filter(
  (entry) => !NOT_RELEASED.some((prefix) => entry.startsWith(prefix)),
);
const needed = [...new Set(released.flatMap((entry) => externals[entry]))].sort();

// 1. Production dependencies from the lockfile and the local store, no network.
mkdirSync(outdir, { recursive: true });
const staging = join(outdir, `.deploy-${process.pid}`);
const deploy = spawnSync(
  "pnpm",
  [
    "--filter",
    "@tollgate/api",
    "deploy",
    "--prod",
    "--offline",
    "--config.inject-workspace-packages=true",
    "--config.node-linker=hoisted",
    staging,
  ],
  { cwd: root, encoding: "utf8" },
);
if (deploy.status !== 0) fail(`pnpm deploy failed:\n${deploy.stdout}${deploy.stderr}`);
renameSync(join(staging, "node_modules"), join(outdir, "node_modules"));
rmSync(staging, { recursive: true, force: true });
const modules = join(outdir, "node_modules");
for (const name of ["@tollgate", ".bin", ...TYPE_ONLY_PEERS])
  rmSync(join(modules, name), { recursive: true, force: true });

// 2. Nothing from the development toolchain, anywhere in the tree.
const tools = findPackages(modules, DEV_TOOLS);
if (tools.length > 0) fail(`development tools in the release: ${tools.join(", ")}`);

// 3. Every package a bundle imports is installed at the top, at the version the workspace pins.
const pinned = workspacePins();
const dependencies = {};
for (const name of needed) {
  const manifest = join(modules, name, "package.json");
  if (!existsSync(manifest)) fail(`${name} is imported by the bundles but not installed in the release`);
  const { version } = JSON.parse(readFileSync(manifest, "utf8"));
  const want = pinned.get(name);
  if (want && want !== version) fail(`${name}: the release has ${version}, the workspace pins ${want}`);
  dependencies[name] = version;
}

// 4. The bundles, their maps, the migrations and the console.
for (const entry of released) {
  for (const file of [entry, `${entry}.map`]) {
    mkdirSync(dirname(join(outdir, "dist", file)), { recursive: true });
    cpSync(join(dist, file), join(outdir, "dist", file));
  }
}
for (const folder of ["drizzle", "console"])
  cpSync(join(dist, folder), join(outdir, "dist", folder), { recursive: true });
cpSync(join(dist, "build-info.json"), join(outdir, "dist", "build-info.json"));

// 5. The release's own package.json.
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const { version } = JSON.parse(readFileSync(join(root, "apps/api/package.json"), "utf8"));
const run = (entry) => `node --enable-source-maps dist/${entry}`;
writeFileSync(
  join(outdir, "package.json"),
  `${JSON.stringify(
    {
      name: "tollgate-release",
      version,
      private: true,
      type: "module",
      engines: rootManifest.engines,
      scripts: {
        start: run("api/main.js"),
        indexer: run("indexer/main.js"),
        migrate: run("migrate.js"),
      },
      dependencies,
    },
    null,
    2,
  )}\n`,
);

const size = spawnSync("du", ["-sk", outdir], { encoding: "utf8" }).stdout.split("\t")[0];
console.log(
  `✔ release in ${outdir}: ${released.length} entries, ${needed.length} direct dependencies, ` +
    `${(Number(size) / 1024).toFixed(0)} MB, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

/** Installed packages named in `names`, at any depth of `modules` (their paths, relative). */
function findPackages(modules, names) {
  const found = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(".")) continue;
      const path = join(dir, entry);
      if (!statSync(path).isDirectory()) continue;
      const packages = entry.startsWith("@")
        ? readdirSync(path).map((scoped) => [`${entry}/${scoped}`, join(path, scoped)])
        : [[entry, path]];
      for (const [name, packagePath] of packages) {
        if (names.includes(name)) found.push(packagePath.slice(modules.length + 1));
        walk(join(packagePath, "node_modules"));
      }
    }
  };
  walk(modules);
  return found;
}

/** Exact versions the workspace's packages declare for their production dependencies. */
function workspacePins() {
  const pins = new Map();
  for (const folder of ["apps", "packages"]) {
    for (const name of readdirSync(join(root, folder))) {
      const manifest = join(root, folder, name, "package.json");
      if (!existsSync(manifest)) continue;
      const { dependencies = {} } = JSON.parse(readFileSync(manifest, "utf8"));
      for (const [dependency, range] of Object.entries(dependencies))
        if (/^\d+\.\d+\.\d+$/.test(range)) pins.set(dependency, range);
    }
  }
  return pins;
}
