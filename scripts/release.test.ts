/**
 * The production build and release (docs/deploy.md "Build and release"; docs/decisions/0060-production-build-and-migrations.md),
 * used as an operator would: bundle, write a release folder, then run its processes with `node` alone. On PGlite: a
 * production API on an empty database refuses with one line naming both schema versions; the migrate step applies,
 * then finds the schema current; the API serves /healthz and the console; the indexer starts; a crash's stack
 * names the .ts sources. On PostgreSQL (TEST_DATABASE_URL): a production API waits for the schema while three
 * migrators run at once (one applies, all exit 0), then serves, next to a production indexer.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUnmigratedTestDatabase, testDatabaseServersFrom } from "@tollgate/db/testing";
import { freePort } from "@tollgate/shared/test-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
// Test setup: the one place here that reads which servers this run has.
const servers = testDatabaseServersFrom(process.env);
const journal = JSON.parse(readFileSync(join(root, "packages/db/drizzle/meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};
const NEWEST = journal.entries.at(-1)?.tag ?? "";
const DEV_TOOLS = ["tsx", "typescript", "vitest", "hardhat"];
const WEBHOOK_SECRET_KEY = "ab".repeat(32);

interface ReleaseProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** `node --enable-source-maps <release>/dist/<entry>` with only `env` (and PATH), as a deployment runs it. */
function run(release: string, entry: string, env: Record<string, string>): ReleaseProcess {
  const child = spawn(process.execPath, ["--enable-source-maps", join(release, "dist", entry)], {
    cwd: release,
    env: { PATH: process.env.PATH, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Runs a one-shot entry to its end: its exit code and output. */
async function runToEnd(release: string, entry: string, env: Record<string, string>) {
  const started = run(release, entry, env);
  const code = await started.exited;
  return { code, output: started.output() };
}

/** Polls `check` a bounded number of times (a condition, never a timing assertion). */
async function until(check: () => boolean | Promise<boolean>, looks = 900): Promise<boolean> {
  for (let i = 0; i < looks; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

const answers = (url: string) =>
  fetch(url).then(
    (response) => response.ok,
    () => false,
  );

/** Installed packages named in `names`, at any depth of a node_modules tree. */
function installed(modules: string, names: readonly string[]): string[] {
  const found: string[] = [];
  for (const entry of existsSync(modules) ? readdirSync(modules) : []) {
    const path = join(modules, entry);
    if (!statSync(path).isDirectory()) continue;
    const packages = entry.startsWith("@")
      ? readdirSync(path).map((scoped) => [`${entry}/${scoped}`, join(path, scoped)] as const)
      : [[entry, path] as const];
    for (const [name, packagePath] of packages) {
      if (names.includes(name)) found.push(packagePath);
      found.push(...installed(join(packagePath, "node_modules"), names));
    }
  }
  return found;
}

/** Resolves true once `text` is in the process's output, false if it exits first (or after the bound). */
function printed(started: ReleaseProcess, text: string): Promise<boolean> {
  let gone = false;
  void started.exited.then(() => {
    gone = true;
  });
  return until(() => gone || started.output().includes(text)).then(() => started.output().includes(text));
}

/** A deployment manifest with no networks: the processes start, and follow or serve no chain. */
function emptyManifest(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "deployments.json");
  writeFileSync(
    path,
    JSON.stringify({ schemaVersion: 1, generatedAt: new Date().toISOString(), chains: {} }),
  );
  return path;
}

/** The API from the release: started, and answering /healthz (or exited, which the caller sees). */
async function startApi(release: string, env: Record<string, string>) {
  const port = await freePort();
  const api = run(release, "api/main.js", { PORT: String(port), ...env });
  let gone = false;
  void api.exited.then(() => {
    gone = true;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const up = await until(async () => gone || (await answers(`${baseUrl}/healthz`)));
  if (!up || gone) throw new Error(`the API did not start:\n${api.output()}`);
  return { ...api, baseUrl };
}

/** /healthz is 200 and /console/ serves the console's page. */
async function expectServing(baseUrl: string) {
  expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  const page = await fetch(`${baseUrl}/console/`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  expect(await page.text()).toContain('<div id="root">');
}

describe("the production build and release", () => {
  const work = mkdtempSync(join(tmpdir(), "tollgate-release-"));
  const release = join(work, "release");

  beforeAll(() => {
    // `pnpm test` built the console already; alone, this file builds it (nothing else is reading it then).
    if (!existsSync(join(root, "apps/console/dist/index.html"))) {
      const console = spawnSync("pnpm", ["--filter", "@tollgate/console", "build"], {
        cwd: root,
        encoding: "utf8",
      });
      if (console.status !== 0) throw new Error(`console build failed:\n${console.stdout}${console.stderr}`);
    }
    for (const [script, args] of [
      ["scripts/build.mjs", []],
      ["scripts/release.mjs", [release]],
    ] as const) {
      const step = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: "utf8" });
      if (step.status !== 0) throw new Error(`${script} failed:\n${step.stdout}${step.stderr}`);
    }
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("holds the entries, the migrations, the console and production dependencies only", () => {
    for (const file of [
      "package.json",
      "dist/api/main.js",
      "dist/api/main.js.map",
      "dist/indexer/main.js",
      "dist/migrate.js",
      "dist/drizzle/meta/_journal.json",
      "dist/console/index.html",
      ...[
        "admin-create",
        "admin-unlock",
        "keys-rotate",
        "quote-signer",
        "audit-verify",
        "audit-export",
        "audit-prune",
        "replay-webhook",
      ].map((name) => `dist/cli/${name}.js`),
    ])
      expect(existsSync(join(release, file)), file).toBe(true);
    const modules = join(release, "node_modules");
    // What must be there, so that the absence below is not that of an empty folder.
    for (const name of ["express", "@electric-sql/pglite", "@node-rs/argon2", "postgres", "viem"])
      expect(existsSync(join(modules, name, "package.json")), name).toBe(true);
    expect(installed(modules, DEV_TOOLS)).toEqual([]);
    expect(existsSync(join(modules, "@tollgate"))).toBe(false);
  });

  it("on PGlite: refuses an unmigrated database in production, migrates, serves, and names .ts files in stacks", async () => {
    const dataDir = join(work, "pglite-data");
    const production = {
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      DEPLOYMENT_MANIFEST: emptyManifest(dataDir),
      WEBHOOK_SECRET_KEY,
    };

    const refused = await runToEnd(release, "api/main.js", {
      ...production,
      PORT: String(await freePort()),
      MIGRATION_WAIT_SECONDS: "1",
    });
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toContain(
      `the database schema is at none (empty database); this build needs ${NEWEST}`,
    );
    expect(refused.output).not.toMatch(/^\s+at /m);

    const first = await runToEnd(release, "migrate.js", production);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain(`schema at ${NEWEST}`);
    const again = await runToEnd(release, "migrate.js", production);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain(
      `schema already current on pglite at ${join(dataDir, "pglite")}: ${NEWEST}`,
    );
    const keys = await runToEnd(release, "cli/keys-rotate.js", production);
    expect(keys.code, keys.output).toBe(0);

    // The commands load from the release too: argon2's native binary, the audit chain, usage refusals.
    writeFileSync(join(work, "password"), "correct horse battery staple\n");
    const created = spawnSync(
      process.execPath,
      [
        join(release, "dist/cli/admin-create.js"),
        "--email",
        "ops@example.com",
        "--password-file",
        join(work, "password"),
      ],
      { cwd: release, env: { PATH: process.env.PATH, ...production }, encoding: "utf8" },
    );
    expect(created.status, `${created.stdout}${created.stderr}`).toBe(0);
    expect(created.stdout).toContain("operator ops@example.com (owner) created");
    const audit = await runToEnd(release, "cli/audit-verify.js", production);
    expect(audit.code, audit.output).toBe(0);
    expect(audit.output).toContain("audit chain intact");
    const usages = await Promise.all(
      ["cli/quote-signer.js", "cli/replay-webhook.js"].map((entry) => runToEnd(release, entry, production)),
    );
    for (const refused of usages) {
      expect(refused.code, refused.output).toBe(2);
      expect(refused.output).toContain("usage:");
    }

    const api = await startApi(release, production);
    await expectServing(api.baseUrl);
    api.child.kill("SIGTERM");
    expect(await api.exited, api.output()).toBe(0);

    // The indexer in development on the same data (PGlite is one process at a time; production needs PostgreSQL).
    const indexer = run(release, "indexer/main.js", {
      DATA_DIR: dataDir,
      WEBHOOK_SECRET_KEY,
      LOG_LEVEL: "info",
    });
    expect(await until(() => indexer.output().includes('"msg":"indexer started"')), indexer.output()).toBe(
      true,
    );
    indexer.child.kill("SIGTERM");
    expect(await indexer.exited, indexer.output()).toBe(0);

    // An unexpected failure (DATA_DIR is a file) prints a stack whose frames are the TypeScript sources.
    const notADirectory = join(work, "a-file");
    writeFileSync(notADirectory, "");
    const crash = await runToEnd(release, "api/main.js", {
      DATA_DIR: notADirectory,
      PORT: String(await freePort()),
    });
    expect(crash.code, crash.output).not.toBe(0);
    expect(crash.output).toMatch(/ENOTDIR/);
    expect(crash.output).toMatch(/packages\/db\/src\/client\.ts:\d+:\d+/);
  }, 120_000);

  it.skipIf(!servers.postgresUrl)(
    "on PostgreSQL: a production API waits for the schema; three migrators at once all exit 0, one applies; then it serves",
    async () => {
      // The migrate step and the waiting services meet a database nothing has migrated.
      const database = await createUnmigratedTestDatabase("postgres", servers);
      try {
        await migrateWhileTheApiWaits(database.url ?? "");
      } finally {
        await database.close();
      }
    },
    120_000,
  );

  async function migrateWhileTheApiWaits(url: string) {
    const dataDir = join(work, "postgres-data");
    const production = {
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      DEPLOYMENT_MANIFEST: emptyManifest(dataDir),
      DATABASE_URL: url,
      WEBHOOK_SECRET_KEY,
    };
    const keys = await runToEnd(release, "cli/keys-rotate.js", production);
    expect(keys.code, keys.output).toBe(0);

    const port = await freePort();
    const api = run(release, "api/main.js", {
      ...production,
      PORT: String(port),
      MIGRATION_WAIT_SECONDS: "90",
    });
    expect(await printed(api, "waiting for the migrate step"), api.output()).toBe(true);
    expect(api.output()).toContain(`this build needs ${NEWEST}`);

    const migrators = await Promise.all([1, 2, 3].map(() => runToEnd(release, "migrate.js", production)));
    for (const migrator of migrators) expect(migrator.code, migrator.output).toBe(0);
    expect(migrators.filter((m) => m.output.includes("migrations applied to postgres"))).toHaveLength(1);
    expect(
      migrators.filter((m) => m.output.includes(`schema already current on postgres: ${NEWEST}`)),
    ).toHaveLength(2);

    const baseUrl = `http://127.0.0.1:${port}`;
    expect(await until(() => answers(`${baseUrl}/healthz`)), api.output()).toBe(true);
    await expectServing(baseUrl);

    const indexer = run(release, "indexer/main.js", { ...production, LOG_LEVEL: "info" });
    expect(await printed(indexer, '"database":"postgres"'), indexer.output()).toBe(true);
    indexer.child.kill("SIGTERM");
    expect(await indexer.exited, indexer.output()).toBe(0);
    api.child.kill("SIGTERM");
    expect(await api.exited, api.output()).toBe(0);
  }
});
