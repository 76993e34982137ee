/**
 * The one place drills learn how Tollgate's processes are started (docs/decisions/0063-scale-out-drill.md):
 * - `dist`: the production release (`pnpm build` then `pnpm release <outdir>`), each entry started as
 *   `node --enable-source-maps <outdir>/dist/<entry>.js`;
 * - `source`: the same entries from the TypeScript sources, `node --import tsx <app>/src/<entry>.ts`.
 * Chosen by TOLLGATE_DRILL_FROM (`dist` | `source`); unset: `dist` when a release folder exists at
 * TOLLGATE_RELEASE_DIR (default `<repo>/release`), else `source`. Both take the same environment variables.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawnNode, type TestProcess } from "@tollgate/shared/test-process";

const REPO = resolve(import.meta.dirname, "../../../..");

/** What a drill starts: the two long-running processes and the one-shot jobs an operator runs before them. */
export type TollgateEntry = "api" | "indexer" | "migrate" | "keys-rotate";

interface EntryPaths {
  /** Relative to the release folder. */
  dist: string;
  /** Working directory (relative to the repository) and script for `node --import tsx`. */
  source: { cwd: string; script: string };
}

const ENTRIES: Record<TollgateEntry, EntryPaths> = {
  api: { dist: "dist/api/main.js", source: { cwd: "apps/api", script: "src/main.ts" } },
  indexer: { dist: "dist/indexer/main.js", source: { cwd: "apps/indexer", script: "src/main.ts" } },
  migrate: { dist: "dist/migrate.js", source: { cwd: "apps/api", script: "src/cli/migrate.ts" } },
  // `pnpm keys:rotate`: the release ships the operator CLIs under dist/cli/ (docs/deploy.md).
  "keys-rotate": {
    dist: "dist/cli/keys-rotate.js",
    source: { cwd: "apps/api", script: "src/cli/rotate-receipt-key.ts" },
  },
};

export interface Launcher {
  from: "dist" | "source";
  /** One line for the drill's output: where the processes come from. */
  describe: string;
  /** Starts `entry` with only `env` (plus PATH); stdout and stderr are collected together. */
  start(entry: TollgateEntry, env: Record<string, string | undefined>): TestProcess;
}

export class LauncherError extends Error {
  override readonly name = "LauncherError";
}

/** The launcher the environment asks for (test setup reads `process.env`; apps never do this). */
export function tollgateLauncher(source: Readonly<Record<string, string | undefined>>): Launcher {
  const releaseDir = resolve(source.TOLLGATE_RELEASE_DIR || join(REPO, "release"));
  const released = existsSync(join(releaseDir, ENTRIES.api.dist));
  const asked = source.TOLLGATE_DRILL_FROM || (released ? "dist" : "source");
  if (asked !== "dist" && asked !== "source")
    throw new LauncherError(`TOLLGATE_DRILL_FROM must be dist or source, not ${asked}`);
  if (asked === "dist" && !released)
    throw new LauncherError(
      `TOLLGATE_DRILL_FROM=dist but ${releaseDir} holds no release (run pnpm build && pnpm release ${releaseDir}, ` +
        "or set TOLLGATE_RELEASE_DIR)",
    );
  if (asked === "source") {
    return {
      from: "source",
      describe: `processes from source (node --import tsx, ${REPO})`,
      start: (entry, env) => {
        const { cwd, script } = ENTRIES[entry].source;
        return spawnNode(join(REPO, cwd), ["--import", "tsx", script], env);
      },
    };
  }
  return {
    from: "dist",
    describe: `processes from the release in ${releaseDir} (node --enable-source-maps dist/…)`,
    start: (entry, env) => {
      const script = ENTRIES[entry].dist;
      if (!existsSync(join(releaseDir, script)))
        throw new LauncherError(`the release in ${releaseDir} has no ${script}`);
      return spawnNode(releaseDir, ["--enable-source-maps", script], env);
    },
  };
}
