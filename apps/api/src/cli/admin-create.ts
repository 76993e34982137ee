/**
 * `pnpm admin:create --email <e> [--role owner|operator|viewer] [--password-file <f>]`: creates an
 * operator account. The password comes from `--password-file` or standard input (prompted without echo on a
 * terminal), never from an argument. Honours DATA_DIR / DATABASE_URL; in development it migrates the database
 * first, so it works before the first start; in production it waits for the migrate step
 * (docs/decisions/0060-production-build-and-migrations.md).
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { DatabaseLockedError, openDatabase, prepareSchema } from "@tollgate/db";
import { KeyFileError } from "@tollgate/shared/startup-check";
import { ZodError } from "zod";
import { EnvError, loadEnv } from "../env";
import { ADMIN_ROLES_FOR_CLI, createAdmin, readPasswordFile } from "../modules/operators";
import { lockedDatabaseHelp } from "./database-help";

async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = "";
    for await (const chunk of process.stdin) text += String(chunk);
    return text.split(/\r?\n/)[0] ?? "";
  }
  const ask = (prompt: string) =>
    new Promise<string>((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
      // Mute the echo: write the prompt once, swallow what the user types.
      const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput;
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
        if (s.includes(prompt)) write.call(rl, prompt);
      };
      rl.question(prompt, (answer) => {
        rl.close();
        process.stdout.write("\n");
        resolve(answer);
      });
    });
  const first = await ask("Password: ");
  const second = await ask("Again: ");
  if (first !== second) throw new Error("the two passwords differ");
  return first;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      email: { type: "string" },
      role: { type: "string", default: "owner" },
      "password-file": { type: "string" },
    },
  });
  if (!values.email) {
    console.error(
      "usage: pnpm admin:create --email <you@example.com> [--role owner|operator|viewer] [--password-file <f>]",
    );
    return 2;
  }
  const role = ADMIN_ROLES_FOR_CLI.find((name) => name === values.role);
  if (!role) {
    console.error(`--role must be one of ${ADMIN_ROLES_FOR_CLI.join(", ")}`);
    return 2;
  }
  const env = loadEnv();
  const password = values["password-file"]
    ? readPasswordFile(values["password-file"], "--password-file")
    : await readPassword();
  const handle = env.databaseUrl
    ? await openDatabase({ kind: "postgres", url: env.databaseUrl, maxConnections: 2 })
    : await openDatabase({ kind: "pglite", dataDir: `${env.dataDir}/pglite` });
  try {
    // In production a command checks the schema once; it never waits (decision 0060).
    await prepareSchema(handle, { migrate: env.schema.migrate, waitMs: 0 });
    const created = await createAdmin(
      handle.db,
      { email: values.email, password, role },
      { now: new Date(), actor: { type: "system", id: "cli" } },
    );
    console.log(`✔ operator ${created?.email} (${created?.role}) created: ${created?.id}`);
    console.log(
      `  sign in: POST ${env.baseUrl}/api/admin/login, or the console at ${env.baseUrl}/console/admin/`,
    );
    return 0;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof DatabaseLockedError) console.error(lockedDatabaseHelp(error, "pnpm admin:create"));
    else if (error instanceof EnvError) console.error(error.message);
    else if (error instanceof ZodError)
      console.error(
        `✖ ${error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; ")}`,
      );
    else if (error instanceof KeyFileError) {
      console.error(error.message);
      process.exit(error.exitCode);
    } else console.error(`✖ ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
