/**
 * Files the API reads at start (the receipt keys file, the development webhook key file, the first operator's password
 * file): missing, unreadable or malformed is one line naming the variable and the path, exit code 2, no stack trace
 * (docs/decisions/0059-network-halts-resume-and-operations.md). The real process entry is spawned.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, spawnTsx } from "@tollgate/shared/test-process";
import { afterAll, describe, expect, it } from "vitest";

const workDir = mkdtempSync(join(tmpdir(), "tollgate-api-files-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function start(name: string, setup: (dir: string) => Record<string, string>) {
  const dir = join(workDir, name);
  mkdirSync(dir);
  const run = spawnTsx(join(import.meta.dirname, ".."), "src/main.ts", {
    NODE_ENV: "development",
    LOG_LEVEL: "error",
    PORT: String(await freePort()),
    SERVE_CONSOLE: "false",
    DATA_DIR: dir,
    ...setup(dir),
  });
  const code = await run.exited;
  return { code, dir, lines: run.output().trim().split("\n") };
}

describe("the API process refuses a file it cannot use with one line and exit 2", () => {
  it("a receipt keys file that is a directory, or not a keys file", async () => {
    const unreadable = await start("keys-dir", (d) => {
      mkdirSync(join(d, "receipt-keys.json"));
      return { RECEIPT_KEYS_FILE: join(d, "receipt-keys.json") };
    });
    expect(unreadable.code).toBe(2);
    expect(unreadable.lines).toEqual([
      `RECEIPT_KEYS_FILE: ${join(unreadable.dir, "receipt-keys.json")}: is a directory, not a file`,
    ]);
    const junk = await start("keys-junk", (d) => {
      writeFileSync(join(d, "receipt-keys.json"), "{}");
      return { RECEIPT_KEYS_FILE: join(d, "receipt-keys.json") };
    });
    expect(junk.code).toBe(2);
    expect(junk.lines).toEqual([
      `RECEIPT_KEYS_FILE: ${join(junk.dir, "receipt-keys.json")}: not a receipt keys file (JSON with a \`keys\` list)`,
    ]);
  }, 120_000);

  it("a webhook key file that cannot be read, and a missing bootstrap password file", async () => {
    const key = await start("webhook-key-dir", (d) => {
      mkdirSync(join(d, "webhook-secret.key"));
      return {};
    });
    expect(key.code).toBe(2);
    expect(key.lines).toEqual([
      `DATA_DIR (webhook key file, WEBHOOK_SECRET_KEY unset): ${join(key.dir, "webhook-secret.key")}: is a directory, not a file`,
    ]);
    const password = await start("no-password", (d) => ({
      ADMIN_BOOTSTRAP_EMAIL: "owner@example.com",
      ADMIN_BOOTSTRAP_PASSWORD_FILE: join(d, "password.txt"),
    }));
    expect(password.code).toBe(2);
    expect(password.lines).toEqual([
      `ADMIN_BOOTSTRAP_PASSWORD_FILE: ${join(password.dir, "password.txt")}: no such file`,
    ]);
  }, 120_000);
});
