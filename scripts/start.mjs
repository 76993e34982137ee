#!/usr/bin/env node
// `pnpm start`: everything on embedded defaults (DESIGN.md §11). Builds the console, then runs local chains,
// the API (PGlite in DATA_DIR, migrations at start, gateway at /g), the indexer and the example merchant in one
// process (packages/devstack) until Ctrl-C or SIGTERM, which stop it cleanly.
// - Ctrl-C: the child runs in this terminal's process group, so SIGINT reaches it directly, exactly once (a
//   second Ctrl-C then forces it out); SIGINT is therefore not forwarded.
// - SIGTERM sent to this process alone (`docker stop`, systemd, a process manager; package.json runs this
//   script with `exec`, so pnpm's forwarded SIGTERM lands here) is forwarded; a second one is forwarded too.
// - If our parent dies without forwarding (e.g. pnpm killed), we are re-parented: stop the child the same way.
// This process exits with the child's code once the child has freed its ports.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
let child;
let stopping = false;

const stop = () => {
  stopping = true;
  child?.kill("SIGTERM");
};
process.on("SIGINT", () => {
  stopping = true;
});
process.on("SIGTERM", stop);
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(watch);
    stop();
  }
}, 1000);
watch.unref();

console.log("▶ building the console");
child = spawn("pnpm", ["--filter", "@tollgate/console", "build"], { cwd: root, stdio: "inherit" });
const built = await new Promise((resolve) => child.once("exit", (code) => resolve(code)));
if (stopping) process.exit(0); // stopped while building: nothing else was started
if (built !== 0 || !existsSync(join(root, "apps/console/dist/index.html"))) {
  console.error("✖ console build failed; the API will start without it");
}

child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
  cwd: join(root, "packages/devstack"),
  stdio: "inherit",
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
