/**
 * Test support (not shipped): packs the publishable packages and installs the tarballs into a fresh project
 * outside the workspace, the way a merchant or an agent developer would (docs/publishing.md "Checking a
 * release"). `pnpm pack` runs each package's `prepack` (the tsdown build), so one pack is one build.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const PACKAGES_DIR = join(import.meta.dirname, "..", "..");
export const PUBLISHED = ["gate", "agent", "mcp"] as const;
const CONSUMER_FILES = ["gate-server.mjs", "agent-pay.mjs", "consumer.ts", "tsconfig.json"];

/** Only what a user's shell has: no npm_config_* or workspace variables leak into the fresh project. */
export function plainEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...extra };
}

/** The version the workspace pins for `name` in `folder` (relative to packages/; ".." is the repo root). */
function devVersion(folder: string, name: string): string {
  const json = JSON.parse(readFileSync(join(PACKAGES_DIR, folder, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const version = json.dependencies?.[name] ?? json.devDependencies?.[name];
  if (!version) throw new Error(`${folder} does not pin ${name}`);
  return version;
}

/** Packs every publishable package into `dest`; returns tarball paths by package folder name. */
export async function packAll(dest: string): Promise<Record<(typeof PUBLISHED)[number], string>> {
  const out: Partial<Record<(typeof PUBLISHED)[number], string>> = {};
  for (const name of PUBLISHED) {
    const { stdout } = await run("pnpm", ["pack", "--pack-destination", dest], {
      cwd: join(PACKAGES_DIR, name),
      env: plainEnv(),
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = stdout.trim().split("\n").at(-1)?.trim();
    if (!tarball?.endsWith(".tgz")) throw new Error(`pnpm pack in ${name} printed no tarball:\n${stdout}`);
    out[name] = tarball;
  }
  return out as Record<(typeof PUBLISHED)[number], string>;
}

/**
 * A fresh project in the temp directory with the tarballs, the peers a user adds (express and its types, viem
 * for a local account) and tsc. `pnpm add --prefer-offline` takes package files from the pnpm store and asks
 * the npm registry only for metadata it has not cached; the override points @tollgate/mcp's dependency on
 * @tollgate/agent at the agent tarball, since that version is not published yet.
 */
export async function installConsumer(tarballs: Record<(typeof PUBLISHED)[number], string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-packed-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "tollgate-packed-consumer",
      private: true,
      type: "module",
      pnpm: { overrides: { "@tollgate/agent": `file:${tarballs.agent}` } },
    }),
  );
  for (const file of CONSUMER_FILES) {
    copyFileSync(join(PACKAGES_DIR, "agent", "packed-consumer", file), join(dir, file));
  }
  const extras = [
    `express@${devVersion("gate", "express")}`,
    `@types/express@${devVersion("gate", "@types/express")}`,
    `@types/node@${devVersion("..", "@types/node")}`,
    `typescript@${devVersion("agent", "typescript")}`,
    `viem@${devVersion("agent", "viem")}`,
  ];
  await run("pnpm", ["add", "--prefer-offline", tarballs.gate, tarballs.agent, tarballs.mcp, ...extras], {
    cwd: dir,
    env: plainEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });
  return dir;
}

/** `tsc -p .` in the consumer project with its own TypeScript; resolves with tsc's output and exit code. */
export async function typecheckConsumer(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(
      process.execPath,
      [join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", "."],
      {
        cwd: dir,
        env: plainEnv(),
      },
    );
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}
