/**
 * `pnpm audit:export --out <file> [--through-seq <n> | --before <ISO date>]`: writes the audit events from the
 * latest checkpoint up to the cut (default: all of them) as a self-verifying JSON Lines file, and prints its SHA-256
 * and the prune command that takes it (docs/operations.md "Audit trail retention"). The file is written beside its
 * final name and renamed when complete; an existing file is never overwritten. Audited (`audit.exported`).
 */
import { open, rename, rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { exportAuditTrail } from "../modules/audit";
import { CLI_ACTOR, runCommand, withServiceDatabase } from "./audit-command";

const USAGE = "usage: pnpm audit:export --out <file.jsonl> [--through-seq <n> | --before <ISO date>]";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { out: { type: "string" }, "through-seq": { type: "string" }, before: { type: "string" } },
  });
  const through = values["through-seq"];
  const before = values.before === undefined ? undefined : new Date(values.before);
  if (
    !values.out ||
    (through !== undefined && !/^[0-9]{1,18}$/.test(through)) ||
    (before !== undefined && Number.isNaN(before.getTime())) ||
    (through !== undefined && before !== undefined)
  ) {
    console.error(USAGE);
    return 2;
  }
  const out = values.out;
  const partial = `${out}.partial`;
  // `wx`: a file already there (an earlier export) is not overwritten.
  const final = await open(out, "wx");
  await final.close();
  const file = await open(partial, "w");
  try {
    const { header, sha256 } = await withServiceDatabase((db) =>
      exportAuditTrail(
        db,
        { throughSeq: through === undefined ? undefined : BigInt(through), before },
        CLI_ACTOR,
        new Date(),
        async (line) => {
          await file.write(line);
        },
      ),
    );
    await file.sync();
    await file.close();
    await rename(partial, out);
    console.log(
      `✔ exported ${header.count} audit events (seq ${header.first_seq}..${header.last_seq}) to ${out}`,
    );
    console.log(`  sha256 ${sha256}`);
    console.log(`  last hash ${header.last_hash}`);
    console.log(`  keep the file outside this system, then prune: pnpm audit:prune --file ${out}`);
    return 0;
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(partial, { force: true });
    await rm(out, { force: true });
    throw error;
  }
}

runCommand("pnpm audit:export", main);
