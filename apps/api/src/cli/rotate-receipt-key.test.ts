/**
 * `pnpm keys:rotate` on the database store, and the API's start refusals, as the processes an operator runs:
 * the first key signs at once, a second rotation is scheduled, a third while it is pending is refused, and a
 * missing or wrong RECEIPT_KEYS_KEK stops the API with one line, not a stack.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, spawnTsx } from "@tollgate/shared/test-process";
import { afterAll, describe, expect, it } from "vitest";

const API_DIR = join(import.meta.dirname, "..", "..");

describe("keys:rotate with RECEIPT_KEYS_STORE=database, and the API's start refusals", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-keys-cli-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    RECEIPT_KEYS_STORE: "database",
    RECEIPT_KEYS_KEK: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
  };

  async function run(script: string, overrides: Record<string, string | undefined> = {}) {
    const started = spawnTsx(API_DIR, script, { ...env, PORT: String(await freePort()), ...overrides });
    const code = await started.exited;
    return { code, output: started.output().trim() };
  }
  const rotate = (overrides: Record<string, string | undefined> = {}) =>
    run("src/cli/rotate-receipt-key.ts", overrides);

  it("refused before the migrate step; then the first key signs at once; the next is scheduled; a third while it is pending is refused", async () => {
    // Production commands never migrate (decision 0060): one line naming the schema this build needs.
    const early = await rotate();
    expect(early.code, early.output).toBe(1);
    expect(early.output).toMatch(
      /^refusing to start: the database schema is at none \(empty database\); this build needs \S+\. Run the migrate step/,
    );
    expect(early.output.split("\n")).toHaveLength(1);
    const migrated = await run("src/cli/migrate.ts");
    expect(migrated.code, migrated.output).toBe(0);

    const first = await rotate();
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(
      /^first receipt signing key \S+ is published and signs at once \(the database/,
    );

    const second = await rotate();
    expect(second.code, second.output).toBe(0);
    expect(second.output).toMatch(/new receipt signing key \S+ is published; it signs from \d{4}-\d\d-\d\dT/);
    expect(second.output).toContain("retiring");

    const third = await rotate();
    expect(third.code).toBe(1);
    expect(third.output).toMatch(/^a rotation is already pending: \S+ signs from /);
    expect(third.output.split("\n")).toHaveLength(1);
  }, 120_000);

  it("the API refuses to start with the wrong RECEIPT_KEYS_KEK or none, in one line", async () => {
    const wrong = await run("src/main.ts", { RECEIPT_KEYS_KEK: randomBytes(32).toString("base64") });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toMatch(/^RECEIPT_KEYS_KEK does not open receipt key \S+ in the database/);
    expect(wrong.output.split("\n")).toHaveLength(1);

    const missing = await run("src/main.ts", { RECEIPT_KEYS_KEK: undefined });
    expect(missing.code).toBe(2);
    expect(missing.output).toBe(
      "Invalid environment:\n  RECEIPT_KEYS_KEK: required with RECEIPT_KEYS_STORE=database",
    );
  }, 120_000);
});
