/**
 * `pnpm docs:config`: writes docs/configuration.md from the environment schemas. `--check` writes nothing and
 * exits 1 when the file differs (what test/config-reference.test.ts asserts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { renderConfigurationReference } from "./config-reference";
import { CONFIGURATION_DOC } from "./paths";

const text = renderConfigurationReference();
if (process.argv.includes("--check")) {
  const current = readFileSync(CONFIGURATION_DOC, "utf8");
  if (current !== text) {
    console.error(`${CONFIGURATION_DOC} is stale: run pnpm docs:config`);
    process.exit(1);
  }
  console.log(`${CONFIGURATION_DOC} is current`);
} else {
  writeFileSync(CONFIGURATION_DOC, text);
  console.log(`wrote ${CONFIGURATION_DOC}`);
}
