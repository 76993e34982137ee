import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminAccounts, type DatabaseHandle } from "@tollgate/db";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EnvError, loadEnv } from "../../env";
import { createLogger } from "../../infra/logger";
import { createTestDatabase, storageDatabaseKinds } from "../../test/harness";
import { bootstrapFirstAdmin } from "./bootstrap";
import { verifyPassword } from "./passwords";

describe.each(storageDatabaseKinds("pglite"))("first operator from the environment on %s", (kind) => {
  let handle: DatabaseHandle;
  let dir: string;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    dir = mkdtempSync(join(tmpdir(), "tollgate-bootstrap-"));
  });
  afterEach(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const log = createLogger("silent");

  it("creates an owner when none exists, and never a second one", async () => {
    const passwordFile = join(dir, "pw");
    writeFileSync(passwordFile, "bootstrap password 1\r\n");
    const bootstrap = { email: "First@Example.com", passwordFile };
    expect(await bootstrapFirstAdmin(handle.db, bootstrap, { now: new Date(), log })).toBe("created");
    writeFileSync(passwordFile, "a different password 2\n");
    expect(
      await bootstrapFirstAdmin(
        handle.db,
        { ...bootstrap, email: "second@example.com" },
        { now: new Date(), log },
      ),
    ).toBe("exists");
    const rows = await handle.db.select().from(adminAccounts);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ email: "first@example.com", role: "owner" });
    expect(await verifyPassword(rows[0]!.passwordHash, "bootstrap password 1")).toBe(true);
  });

  it("without the variables creates nothing (there is no default password)", async () => {
    expect(await bootstrapFirstAdmin(handle.db, undefined, { now: new Date(), log })).toBe("not_configured");
    expect(await handle.db.select().from(adminAccounts)).toEqual([]);
  });
});

describe("bootstrap variables", () => {
  it("must come together", () => {
    expect(() => loadEnv({ ADMIN_BOOTSTRAP_EMAIL: "a@example.com" })).toThrow(EnvError);
    expect(() => loadEnv({ ADMIN_BOOTSTRAP_PASSWORD_FILE: "/tmp/x" })).toThrow(/set both or neither/);
    expect(
      loadEnv({ ADMIN_BOOTSTRAP_EMAIL: "a@example.com", ADMIN_BOOTSTRAP_PASSWORD_FILE: "/tmp/x" }).admin
        .bootstrap,
    ).toEqual({
      email: "a@example.com",
      passwordFile: "/tmp/x",
    });
  });
});
