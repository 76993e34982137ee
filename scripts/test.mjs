#!/usr/bin/env node
// `pnpm test`: builds what the suites need (contracts, console), says whether browser tests can run,
// runs every vitest project, and ends with one plain summary line.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

function step(title, command, args) {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`✖ ${title} failed`);
    process.exit(result.status ?? 1);
  }
}

if (existsSync(join(root, "contracts/hardhat.config.cjs"))) {
  step("compiling contracts (offline solc)", "pnpm", ["--filter", "@tollgate/contracts", "compile"]);
}
if (existsSync(join(root, "apps/console/index.html"))) {
  step("building the console", "pnpm", ["--filter", "@tollgate/console", "build"]);
}
if (!existsSync("/usr/bin/chromium")) {
  console.log(
    "\n⚠ browser tests will be SKIPPED: /usr/bin/chromium not found (install it: apt-get install -y chromium)",
  );
}
console.log(
  `\n▶ running tests on PGlite${process.env.TEST_DATABASE_URL ? " and PostgreSQL" : ""}` +
    `${process.env.TEST_REDIS_URL ? ", with Redis" : ", in-memory stores"}`,
);

const out = mkdtempSync(join(tmpdir(), "tollgate-test-"));
const report = join(out, "report.json");
const result = spawnSync(
  "vitest",
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);
if (existsSync(report)) {
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, testResults } = JSON.parse(
    readFileSync(report, "utf8"),
  );
  // A file that fails to load runs no test; count it as a failure so the summary never looks green.
  const brokenFiles = testResults.filter(
    (file) => file.status === "failed" && file.assertionResults.every((test) => test.status !== "failed"),
  ).length;
  console.log(
    `\ntests: ${numPassedTests} passed, ${numFailedTests + brokenFiles} failed, ${numPendingTests + numTodoTests} skipped`,
  );
}
rmSync(out, { recursive: true, force: true });
process.exit(result.status ?? 1);
