/**
 * Files read at run time, found the same way from the sources (under tsx) and from a release folder's bundles
 * (docs/decisions/0060-production-build-and-migrations.md). A bundle is one file, so `import.meta.url` there is the
 * bundle's, not the module's: scripts/build.mjs defines `__TOLLGATE_RELEASE_ROOT__`, the path from the bundle's
 * directory to the release folder (`../..` for dist/api/main.js), and paths are then taken from the release folder.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

declare const __TOLLGATE_RELEASE_ROOT__: string | undefined;

/** The bundle's directory to the release folder, when this code runs from a build; undefined under tsx. */
const RELEASE_ROOT_FROM_BUNDLE: string | undefined =
  typeof __TOLLGATE_RELEASE_ROOT__ === "string" ? __TOLLGATE_RELEASE_ROOT__ : undefined;

/** True when this code runs from a bundle of scripts/build.mjs. */
export const RUNS_FROM_BUILD = RELEASE_ROOT_FROM_BUNDLE !== undefined;

/**
 * An absolute path: `source` taken from the directory of the module at `moduleUrl` (pass `import.meta.url`), or,
 * in a bundle, `release` taken from the release folder.
 */
export function runtimePath(moduleUrl: string, paths: { source: string; release: string }): string {
  const here = dirname(fileURLToPath(moduleUrl));
  return RELEASE_ROOT_FROM_BUNDLE === undefined
    ? resolve(here, paths.source)
    : resolve(here, RELEASE_ROOT_FROM_BUNDLE, paths.release);
}
