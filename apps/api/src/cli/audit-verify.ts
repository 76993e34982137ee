/**
 * `pnpm audit:verify [--file <export.jsonl>]`: walks the audit chain from the latest retention checkpoint's anchor
 * (the genesis when nothing was pruned) and reports the first broken link; with `--file`, verifies an export
 * offline instead, without a database (docs/operations.md "Audit trail retention"). Exit 0 when intact, 1 when
 * broken (or on error). The running service answers the same at `GET /admin/api/audit?verify=1`.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { verifyAuditChain, verifyAuditExport } from "../modules/audit";
import { runCommand, withServiceDatabase } from "./audit-command";

function verifyFile(path: string): number {
  const result = verifyAuditExport(readFileSync(path, "utf8"));
  if (!result.ok) {
    console.error(`✖ export ${path} broken at line ${result.line}: ${result.reason}`);
    return 1;
  }
  const { header } = result;
  console.log(
    `✔ export intact: ${header.count} events, seq ${header.first_seq}..${header.last_seq}, from ${header.first_prev_hash} to ${header.last_hash}`,
  );
  console.log(`  sha256 ${result.sha256}`);
  return 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { file: { type: "string" } } });
  if (values.file) return verifyFile(values.file);
  const result = await withServiceDatabase(verifyAuditChain);
  if (result.ok) {
    const from = result.checkpoint
      ? `from checkpoint ${result.checkpoint.anchor_hash} (${result.checkpoint.pruned_total} events pruned, last on ${result.checkpoint.at})`
      : "from the genesis";
    console.log(`✔ audit chain intact: ${result.checked} events, head ${result.head}, verified ${from}`);
    return 0;
  }
  console.error(
    `✖ audit chain broken at ${result.broken.id} (seq ${result.broken.seq}): ${result.broken.reason}; ${result.checked} events before it verify`,
  );
  return 1;
}

runCommand("pnpm audit:verify", main);
