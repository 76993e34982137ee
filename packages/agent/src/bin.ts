#!/usr/bin/env node
/**
 * The `tollgate-agent` executable (docs/agent.md): runs {@link runCli} with this process's arguments, streams and
 * environment. In the published package this file is compiled to dist/bin.js; in the repo bin/tollgate-agent.js
 * runs it through tsx.
 */
import { runCli } from "./cli";

runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
