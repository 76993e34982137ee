#!/usr/bin/env node
// `pnpm test`: builds what the suites need (contracts, `pnpm build`), says whether browser tests can run,
// runs every vitest project, prints the slowest files, and ends with one plain summary line.
// `pnpm test:unit` (`--tier unit`) runs only the tests that need no database, chain, browser or process
// (scripts/test-tiers.mjs; docs/testing.md "Tiers"), without building anything.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { testTiers } from "./test-tiers.mjs";

const root = join(import.meta.dirname, "..");
/** Per-file times of the last run (ignored by git): read it to see where the suite's time goes. */
const TIMINGS_FILE = join(root, ".test-timings.json");
const SLOWEST_SHOWN = 15;

const args = process.argv.slice(2);
const tierAt = args.indexOf("--tier");
const tier = tierAt === -1 ? "all" : args.splice(tierAt, 2)[1];
if (tier !== "all" && tier !== "unit") {
  console.error(`✖ unknown tier ${tier}: use --tier unit, or no --tier for every test`);
  process.exit(2);
}
const unitFiles = tier === "unit" ? testTiers(root).unit : [];

function step(title, command, args) {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`✖ ${title} failed`);
    process.exit(result.status ?? 1);
  }
}

if (tier === "all" && existsSync(join(root, "contracts/hardhat.config.cjs"))) {
  step("compiling contracts (offline solc)", "pnpm", ["--filter", "@tollgate/contracts", "compile"]);
}
if (tier === "all") {
  // The console and every package's own build, then the bundles (scripts/build.mjs, about a second).
  step("building (pnpm build: the console, the packages, the bundles in dist/)", "pnpm", ["build"]);
}
if (tier === "all" && !existsSync("/usr/bin/chromium")) {
  console.log(
    "\n⚠ browser tests will be SKIPPED: /usr/bin/chromium not found (install it: apt-get install -y chromium)",
  );
}
if (tier === "unit") console.log(`\n▶ running the unit tier: ${unitFiles.length} files`);
else
  console.log(
    `\n▶ running tests on PGlite${process.env.TEST_DATABASE_URL ? " and PostgreSQL" : ""}` +
      `${process.env.TEST_REDIS_URL ? ", with Redis" : ", in-memory stores"}`,
  );

const out = mkdtempSync(join(tmpdir(), "tollgate-test-"));
const report = join(out, "report.json");
// The scale-out drill runs the processes from a release folder, as the image does (docs/decisions/0063).
const childEnv = { ...process.env };
if (tier === "all" && !process.env.TOLLGATE_RELEASE_DIR) {
  const release = join(out, "release");
  step("writing a release folder for the drills (pnpm release)", "pnpm", ["release", release]);
  childEnv.TOLLGATE_RELEASE_DIR = release;
  childEnv.TOLLGATE_DRILL_FROM = "dist";
}
const result = spawnSync(
  "vitest",
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...args, ...unitFiles],
  { cwd: root, stdio: "inherit", env: childEnv },
);
if (existsSync(report)) {
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, testResults } = JSON.parse(
    readFileSync(report, "utf8"),
  );
  // A file that fails to load runs no test; count it as a failure so the summary never looks green.
  const brokenFiles = testResults.filter(
    (file) => file.status === "failed" && file.assertionResults.every((test) => test.status !== "failed"),
  ).length;
  printSlowest(testResults);
  console.log(
    `\ntests: ${numPassedTests} passed, ${numFailedTests + brokenFiles} failed, ${numPendingTests + numTodoTests} skipped`,
  );
}
rmSync(out, { recursive: true, force: true });

/** Saves every file's time to TIMINGS_FILE and prints the slowest ones. */
function printSlowest(testResults) {
  const timings = testResults
    .map((file) => ({ file: relative(root, file.name), seconds: (file.endTime - file.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds);
  writeFileSync(TIMINGS_FILE, `${JSON.stringify({ tier, files: timings }, null, 2)}\n`);
  console.log(
    `\nslowest ${Math.min(SLOWEST_SHOWN, timings.length)} of ${timings.length} files (all in .test-timings.json):`,
  );
  for (const { file, seconds } of timings.slice(0, SLOWEST_SHOWN))
    console.log(`${seconds.toFixed(1).padStart(8)} s  ${file}`);
}
process.exit(result.status ?? 1);
