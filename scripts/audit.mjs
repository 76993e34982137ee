#!/usr/bin/env node
// `pnpm audit:deps`: `pnpm audit --prod`, or, where the registry refuses its audit endpoints (they answer 405 from some
// networks), a plain statement that nothing was checked and where the last manual audit is. Never passes silently.
import { spawnSync } from "node:child_process";

const run = spawnSync("pnpm", ["audit", "--prod", ...process.argv.slice(2)], { encoding: "utf8" });
const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
if (output.includes("ERR_PNPM_AUDIT_BAD_RESPONSE") || output.includes("ERR_PNPM_AUDIT_ENDPOINT")) {
  process.stderr.write(
    `${output.trim()}\n\naudit:deps: the registry's audit endpoint refused the request, so NOTHING was checked.\n` +
      "The last manual audit (method, table, verdicts) is docs/dependency-audit.md; repeat it or run this where the\n" +
      "endpoint answers.\n",
  );
  process.exit(2);
}
process.stdout.write(output);
process.exit(run.status ?? 1);
