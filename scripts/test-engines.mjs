#!/usr/bin/env node
// Which database engine each database suite runs on (docs/testing.md "Engines"), read from the source: a suite
// that calls `testDatabaseKinds()` tests SQL behaviour and runs on every engine; one that calls
// `storageDatabaseKinds("pglite" | "postgres")` uses the database only as storage and runs on that one engine.
//
//   node scripts/test-engines.mjs          prints the table
//   node scripts/test-engines.mjs --write  rewrites the table in docs/testing.md
//   node scripts/test-engines.mjs --check  fails when docs/testing.md's table differs from the source (pnpm lint)
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTiers } from "./test-tiers.mjs";

const root = join(import.meta.dirname, "..");
const DOC = join(root, "docs/testing.md");
const START = "<!-- engines:start (scripts/test-engines.mjs --write) -->";
const END = "<!-- engines:end -->";

/** Every database suite with the engines it runs on, sorted by path. */
export function suiteEngines(repoRoot) {
  const { integration } = testTiers(repoRoot);
  const suites = [];
  for (const file of integration) {
    const source = readFileSync(join(repoRoot, file), "utf8");
    const storage = [...source.matchAll(/\bstorageDatabaseKinds\(\s*"(pglite|postgres)"\s*\)/g)].map(
      (m) => m[1],
    );
    const sql = /\btestDatabaseKinds\(/.test(source);
    if (sql) suites.push({ file, use: "SQL behaviour", engines: "PGlite and PostgreSQL" });
    else if (storage.length > 0)
      suites.push({
        file,
        use: "storage",
        engines: [...new Set(storage)]
          .map((kind) => (kind === "postgres" ? "PostgreSQL" : "PGlite"))
          .join(", "),
      });
  }
  return suites;
}

function table(suites) {
  const rows = suites.map((suite) => `| \`${suite.file}\` | ${suite.use} | ${suite.engines} |`);
  return ["| suite | tests | runs on (with TEST_DATABASE_URL set) |", "| --- | --- | --- |", ...rows].join(
    "\n",
  );
}

/** The table as text, without the column padding Biome adds to Markdown tables. */
const unpadded = (text) =>
  text
    .split("\n")
    .map((line) => line.replace(/\s*\|\s*/g, "|").replace(/-{3,}/g, "---"))
    .join("\n")
    .trim();

function documented() {
  const doc = readFileSync(DOC, "utf8");
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from === -1 || to === -1) throw new Error(`docs/testing.md lacks the markers ${START} ... ${END}`);
  return { doc, from: from + START.length, to };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const suites = suiteEngines(root);
  const wanted = `\n${table(suites)}\n`;
  const mode = process.argv[2];
  if (mode === "--write") {
    const { doc, from, to } = documented();
    writeFileSync(DOC, doc.slice(0, from) + wanted + doc.slice(to));
    spawnSync("pnpm", ["exec", "biome", "format", "--write", DOC], { cwd: root, stdio: "ignore" });
    console.log(`docs/testing.md: ${suites.length} database suites listed`);
  } else if (mode === "--check") {
    const { doc, from, to } = documented();
    if (unpadded(doc.slice(from, to)) !== unpadded(wanted)) {
      console.error("✖ docs/testing.md's engine table is stale: run node scripts/test-engines.mjs --write");
      process.exit(1);
    }
  } else console.log(table(suites));
}
