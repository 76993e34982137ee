import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditEvents, openDatabase } from "@tollgate/db";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../env";
import { clientKey } from "../infra/rate-limit";
import { createLoginLimiter } from "../modules/operators";
import { TEST_REDIS_URL } from "../test/harness";

/** Runs `pnpm admin:unlock` as a user would, with its own DATA_DIR (PGlite) and only the variables given. */
function unlock(args: string[], env: Record<string, string>) {
  return spawnSync("pnpm", ["--silent", "admin:unlock", ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "development", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("pnpm admin:unlock", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "tollgate-unlock-cli-"));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("without Redis says the waits are out of its reach, and changes nothing", () => {
    const result = unlock(["--email", "owner@example.com"], { DATA_DIR: dataDir });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/REDIS_URL is not set/);
    expect(result.stderr).toMatch(/within LOGIN_MAX_DELAY_SECONDS \(900 s here\)/);
    expect(unlock([], { DATA_DIR: dataDir }).status).toBe(2);
  }, 120_000);

  it.skipIf(!TEST_REDIS_URL)(
    "with Redis lifts an email's waits and records admin.login.unlocked",
    async () => {
      const prefix = `test-${randomUUID()}:`;
      const redis = new Redis(TEST_REDIS_URL!, { maxRetriesPerRequest: 1 });
      try {
        const policy = {
          freeFailuresPerAccount: 1,
          freeFailuresPerClient: 100,
          baseDelaySeconds: 60,
          maxDelaySeconds: 900,
        };
        const limiter = createLoginLimiter(policy, { client: redis, prefix });
        const client = clientKey("192.0.2.44");
        const now = new Date();
        for (let i = 0; i < 2; i++) {
          expect((await limiter.admit(client, "owner@example.com", now)).allowed).toBe(true);
          await limiter.recordFailure(client, "owner@example.com", now);
        }
        expect((await limiter.admit(client, "owner@example.com", now)).allowed).toBe(false);

        const result = unlock(["--email", "owner@example.com"], {
          DATA_DIR: dataDir,
          REDIS_URL: TEST_REDIS_URL!,
          REDIS_KEY_PREFIX: prefix,
        });
        expect(result.stderr).toBe("");
        expect(result.status).toBe(0);
        expect(result.stdout).toMatch(
          /sign-in waits lifted for owner@example\.com: 1 limiter entries cleared/,
        );
        expect((await limiter.admit(client, "owner@example.com", now)).allowed).toBe(true);
        expect(await redis.keys(`${prefix}login:*account:owner@example.com*`)).toEqual([]);
      } finally {
        redis.disconnect();
      }
      const handle = await openDatabase({ kind: "pglite", dataDir: join(dataDir, "pglite") });
      try {
        const rows = await handle.db.select().from(auditEvents);
        expect(rows.map((row) => [row.action, row.actorId, row.targetId])).toEqual([
          ["admin.login.unlocked", "cli", "owner@example.com"],
        ]);
        expect(rows[0]?.details).toMatchObject({ cleared: 1, refused_unreported: 1 });
      } finally {
        await handle.close();
      }
    },
    120_000,
  );
});
