/**
 * `pnpm audit:prune --file <export.jsonl>`: verifies the export offline, then records a retention checkpoint and
 * deletes the events the export holds, refusing unless the database's own export of that range has the file's
 * SHA-256 (docs/decisions/0065-audit-retention-and-checkpoints.md). Audited (`audit.pruned`, actor `system`/`cli`).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { pruneAuditTrail, verifyAuditExport } from "../modules/audit";
import { CLI_ACTOR, runCommand, withServiceDatabase } from "./audit-command";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { file: { type: "string" } } });
  if (!values.file) {
    console.error("usage: pnpm audit:prune --file <export.jsonl> (made by pnpm audit:export)");
    return 2;
  }
  const check = verifyAuditExport(readFileSync(values.file, "utf8"));
  if (!check.ok) {
    console.error(`✖ export ${values.file} broken at line ${check.line}: ${check.reason}; nothing pruned`);
    return 1;
  }
  const checkpoint = await withServiceDatabase((db) =>
    pruneAuditTrail(
      db,
      { throughSeq: BigInt(check.header.last_seq), exportSha256: check.sha256 },
      CLI_ACTOR,
      new Date(),
    ),
  );
  console.log(
    `✔ pruned ${checkpoint.prunedCount} audit events through seq ${checkpoint.throughSeq}: checkpoint ${checkpoint.id}`,
  );
  console.log(`  the trail now verifies from anchor ${checkpoint.anchorHash}`);
  return 0;
}

runCommand("pnpm audit:prune", main);
