#!/usr/bin/env node
// `pnpm start`: everything on embedded defaults (DESIGN.md §11). Builds the console, then runs local chains,
// the API (PGlite in DATA_DIR, migrations at start, gateway at /g), the indexer and the example merchant in one
// process (packages/devstack) until Ctrl-C.
// The child runs in this terminal's process group, so Ctrl-C reaches it directly, exactly once (a second
// Ctrl-C then forces it out); SIGINT is therefore not forwarded, SIGTERM (sent to this process alone) is.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

console.log("▶ building the console");
const build = spawnSync("pnpm", ["--filter", "@tollgate/console", "build"], { cwd: root, stdio: "inherit" });
if (build.status !== 0 || !existsSync(join(root, "apps/console/dist/index.html"))) {
  console.error("✖ console build failed; the API will start without it");
}

const stack = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
  cwd: join(root, "packages/devstack"),
  stdio: "inherit",
});
process.on("SIGINT", () => {});
process.on("SIGTERM", () => stack.kill("SIGTERM"));
stack.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
