// Test tiers (docs/testing.md "Tiers"): a test file is a unit test when neither it nor any repo file it reaches
// through relative imports starts a database, a chain, an API, a browser or an external server. Read from the
// source on every run, so a new test lands in the right tier without a list to keep.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** What a file must not contain, directly or through what it imports, to be a unit test. */
const NEEDS_INFRASTRUCTURE = [
  /\bstartTestApi\b/,
  /\bcreateTestDatabase\b/,
  /\btestDatabaseKinds\b/,
  /\bstorageDatabaseKinds\b/,
  /\bstartThrowawayCluster\b/,
  /@tollgate\/db\/testing/,
  /@tollgate\/api\/testing/,
  /@tollgate\/indexer\/testing/,
  /@tollgate\/contracts\/(local-chains|deploy|hardhat|rpc-fault-proxy)/,
  /@tollgate\/devstack/,
  /\bnew PGlite\b/,
  /\bopenDatabase\b/,
  /\bcreateDatabase\b/,
  /\bhardhat\b/,
  /playwright/,
  /chromium/i,
  /TEST_DATABASE_URL|TEST_REDIS_URL/,
  /\bioredis\b/,
  /\bstartThrowawayRedis\b/,
  // A spawned process (the API's main, `pnpm start`, a CLI) is a system test, not a unit one.
  /\bspawn(Sync)?\(/,
  /\bexecFile(Sync)?\(/,
];

/** Projects whose every file needs infrastructure: the contracts (Hardhat) and the browser tests. */
const INFRASTRUCTURE_ROOTS = ["contracts/", "apps/console/test/"];
const SKIP_DIRECTORIES = new Set(["node_modules", "dist", "artifacts", "cache", ".tollgate", "coverage"]);
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function testFiles(root, directory) {
  const found = [];
  for (const name of readdirSync(directory)) {
    if (SKIP_DIRECTORIES.has(name) || name.startsWith(".")) continue;
    const path = join(directory, name);
    if (statSync(path).isDirectory()) found.push(...testFiles(root, path));
    else if (/\.test\.tsx?$/.test(name)) found.push(relative(root, path));
  }
  return found;
}

function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, "index.ts"),
    base.replace(/\.js$/, ".ts"),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Does `file`, or a repo file it imports relatively, need infrastructure? Memoised per run. */
function needsInfrastructure(file, seen, memo) {
  if (memo.has(file)) return memo.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(file, "utf8");
  let needs = NEEDS_INFRASTRUCTURE.some((marker) => marker.test(source));
  for (const match of needs ? [] : source.matchAll(IMPORT)) {
    // A type-only import loads nothing when the test runs.
    if (/^(?:import|export)\s+type\s/.test(match[0])) continue;
    const target = resolveImport(file, match[1] ?? match[2]);
    if (target && needsInfrastructure(target, seen, memo)) {
      needs = true;
      break;
    }
  }
  memo.set(file, needs);
  return needs;
}

/** Every test file of the workspace, split into the unit tier and the rest, relative to `root`. */
export function testTiers(root) {
  const memo = new Map();
  const unit = [];
  const integration = [];
  for (const directory of ["apps", "packages", "contracts", "deploy"]) {
    for (const file of testFiles(root, join(root, directory))) {
      const infrastructure =
        INFRASTRUCTURE_ROOTS.some((prefix) => file.startsWith(prefix)) ||
        needsInfrastructure(join(root, file), new Set(), memo);
      (infrastructure ? integration : unit).push(file);
    }
  }
  return { unit: unit.sort(), integration: integration.sort() };
}
