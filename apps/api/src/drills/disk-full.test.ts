/**
 * Drill: the disk holding PGlite fills up. The database lives on a tiny tmpfs (mounted by the test;
 * skipped with a message where mounting is not permitted), which a filler file then fills to the last byte.
 * What must hold: writes answer 503 `service_unavailable` with Retry-After (PostgreSQL's disk_full, SQLSTATE
 * 53100), never a 500; nothing is half-written (no merchant, no audit row); reads still answer; once space is
 * freed, the same request succeeds without a restart.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditEvents, type DatabaseHandle, merchants, openDatabase } from "@tollgate/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registrationBody, startTestApi, type TestApi } from "../test/harness";

const mountPoint = mkdtempSync(join(tmpdir(), "tollgate-drill-disk-"));
let mounted = false;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", mountPoint], { stdio: "ignore" });
  mounted = true;
} catch {
  console.log("disk-full drill skipped: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)");
  rmSync(mountPoint, { recursive: true, force: true });
}

/** Writes 1 MiB blocks, then smaller ones, until the file system refuses (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, "w");
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const block = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!mounted)("drill: the disk holding PGlite fills up", () => {
  let db: DatabaseHandle;
  let api: TestApi;
  const filler = join(mountPoint, "filler");

  beforeAll(async () => {
    db = await openDatabase({ kind: "pglite", dataDir: join(mountPoint, "pglite") });
    await db.migrate();
    api = await startTestApi(
      "pglite",
      { DATA_DIR: mountPoint, RATE_LIMIT_REGISTRATIONS_PER_HOUR: "100000" },
      { db },
    );
  });
  afterAll(async () => {
    await api?.close();
    await db?.close();
    if (mounted) {
      execFileSync("umount", [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  it("writes that need space answer 503 and leave nothing half-written; reads answer; freeing space recovers", async () => {
    const first = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ name: "Before Full" }),
    });
    expect(first.status, first.text).toBe(201);
    const counts = async () => ({
      merchants: (await db.db.select().from(merchants)).length,
      audit: (await db.db.select().from(auditEvents)).length,
    });
    const before = await counts();

    fill(filler);
    // Rows that still fit in pages already on disk are written; the first write that needs a new page is refused.
    let written = 0;
    let refused = await api.call("POST", "/v1/merchants", { body: registrationBody({ name: "While Full" }) });
    while (refused.status === 201 && written < 2_000) {
      written++;
      refused = await api.call("POST", "/v1/merchants", { body: registrationBody({ name: "While Full" }) });
    }
    expect(refused.status, refused.text).toBe(503);
    expect(refused.json.code).toBe("service_unavailable");
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    // Each 201 wrote its merchant and its audit row; the refused one wrote neither.
    const full = await counts();
    expect(full.merchants).toBe(before.merchants + written);
    const auditPerRegistration = before.audit / before.merchants;
    expect(full.audit - before.audit).toBe(written * auditPerRegistration);
    const again = await api.call("POST", "/v1/merchants", { body: registrationBody({ name: "While Full" }) });
    expect(again.status, again.text).toBe(503);
    expect(await counts()).toEqual(full);
    const read = await api.call("GET", `/v1/merchants/${String(first.json.merchant_id)}`);
    expect(read.status, read.text).toBe(200);

    rmSync(filler);
    const after = await api.call("POST", "/v1/merchants", { body: registrationBody({ name: "After Full" }) });
    expect(after.status, after.text).toBe(201);
    expect((await counts()).merchants).toBe(full.merchants + 1);
  });
});
