/**
 * Files the indexer reads at start (the deployment manifest, the development webhook key file): missing,
 * unreadable or malformed is one line naming the variable and the path, exit code 2, no stack trace
 * (docs/decisions/0059-network-halts-resume-and-operations.md). The real process entry is spawned.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnTsx } from "@tollgate/shared/test-process";
import { afterAll, describe, expect, it } from "vitest";

const workDir = mkdtempSync(join(tmpdir(), "tollgate-indexer-files-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const EMPTY_MANIFEST = { schemaVersion: 1, generatedAt: "2026-01-01T00:00:00.000Z", chains: {} };

async function start(name: string, setup: (dir: string) => Record<string, string>) {
  const dir = join(workDir, name);
  mkdirSync(dir);
  const run = spawnTsx(join(import.meta.dirname, ".."), "src/main.ts", {
    NODE_ENV: "development",
    LOG_LEVEL: "info",
    DATA_DIR: dir,
    ...setup(dir),
  });
  const code = await run.exited;
  return { code, dir, lines: run.output().trim().split("\n") };
}

describe("the indexer process refuses a file it cannot use with one line and exit 2", () => {
  it("no deployment manifest", async () => {
    const { code, dir, lines } = await start("no-manifest", (d) => ({
      DEPLOYMENT_MANIFEST: join(d, "deployments.json"),
    }));
    expect(code).toBe(2);
    expect(lines).toEqual([
      `DEPLOYMENT_MANIFEST: ${join(dir, "deployments.json")}: no such file; deploy the contracts first (\`pnpm start\` writes it for local chains)`,
    ]);
  }, 60_000);

  it("a deployment manifest that is a directory", async () => {
    const { code, dir, lines } = await start("manifest-dir", (d) => {
      mkdirSync(join(d, "deployments.json"));
      return { DEPLOYMENT_MANIFEST: join(d, "deployments.json") };
    });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `DEPLOYMENT_MANIFEST: ${join(dir, "deployments.json")}: is a directory, not a file`,
    ]);
  }, 60_000);

  it("a webhook key file that cannot be read, or holds no key", async () => {
    const manifest = (d: string) => {
      writeFileSync(join(d, "deployments.json"), JSON.stringify(EMPTY_MANIFEST));
      return { DEPLOYMENT_MANIFEST: join(d, "deployments.json") };
    };
    const unreadable = await start("key-dir", (d) => {
      mkdirSync(join(d, "webhook-secret.key"));
      return manifest(d);
    });
    expect(unreadable.code).toBe(2);
    expect(unreadable.lines).toEqual([
      `DATA_DIR (webhook key file, WEBHOOK_SECRET_KEY unset): ${join(unreadable.dir, "webhook-secret.key")}: is a directory, not a file`,
    ]);
    const junk = await start("key-junk", (d) => {
      writeFileSync(join(d, "webhook-secret.key"), "not a key\n");
      return manifest(d);
    });
    expect(junk.code).toBe(2);
    expect(junk.lines).toEqual([
      `DATA_DIR (webhook key file, WEBHOOK_SECRET_KEY unset): ${join(junk.dir, "webhook-secret.key")}: does not hold a 32-byte key (base64 or hex)`,
    ]);
  }, 60_000);
});
