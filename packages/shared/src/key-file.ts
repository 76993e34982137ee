/**
 * Reading a file a process needs at start (docs/decisions/0059-network-halts-resume-and-operations.md). Apart from
 * startup-check.ts so that code the console bundles for the browser never imports node:fs.
 */
import { readFileSync } from "node:fs";
import { fileProblem, KeyFileError } from "./startup-check";

/** The text of the file `variable` names; any failure is a KeyFileError. */
export function readKeyFile(variable: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new KeyFileError(variable, path, fileProblem(error), { cause: error });
  }
}
