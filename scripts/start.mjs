#!/usr/bin/env node
// `pnpm start`: everything on embedded defaults (DESIGN.md §11). Builds the console, then runs local chains,
// the API (PGlite in DATA_DIR, migrations at start, gateway at /g) and the example merchant in one process
// (apps/api/src/cli/start-all.ts) until Ctrl-C; signals are forwarded so shutdown is graceful.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

console.log("▶ building the console");
const build = spawnSync("pnpm", ["--filter", "@tollgate/console", "build"], { cwd: root, stdio: "inherit" });
if (build.status !== 0 || !existsSync(join(root, "apps/console/dist/index.html"))) {
  console.error("✖ console build failed; the API will start without it");
}

const api = spawn("pnpm", ["--filter", "@tollgate/api", "start:all"], { cwd: root, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => api.kill(signal));
api.on("exit", (code) => process.exit(code ?? 0));
