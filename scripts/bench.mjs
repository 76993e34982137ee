#!/usr/bin/env node
// `pnpm bench`: runs every benchmark under bench/ in turn (each prints its own table with a baseline
// measured in the same run). `pnpm bench quote` runs the files whose name starts with "quote" (else
// those containing it).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const filter = process.argv[2];
const all = readdirSync(join(root, "bench"))
  .filter((file) => file.endsWith(".ts") && file !== "lib.ts")
  .sort();
// Names starting with the filter win over names merely containing it: `pnpm bench quote` is quote-throughput.ts
// alone, not growth-quotes.ts too.
const starting = all.filter((file) => filter && file.startsWith(filter));
const files = starting.length > 0 ? starting : all.filter((file) => !filter || file.includes(filter));
let failed = 0;
for (const file of files) {
  console.log(`\n━━ bench/${file}`);
  const result = spawnSync("tsx", [join("bench", file)], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
