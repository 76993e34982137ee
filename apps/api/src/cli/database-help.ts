import type { DatabaseLockedError } from "@tollgate/db";

/** What to do when a command meets the embedded database held by the running service (PGlite: one process). */
export function lockedDatabaseHelp(error: DatabaseLockedError, command: string): string {
  return [
    `✖ The service is running (process ${error.pid}) and holds the embedded database in ${error.dataDir}.`,
    "  The embedded database (PGlite) can be opened by one process at a time. Either:",
    `  - stop the service (Ctrl-C where \`pnpm start\` runs), run \`${command}\` again, then start it; or`,
    "  - for the first operator: set ADMIN_BOOTSTRAP_EMAIL and ADMIN_BOOTSTRAP_PASSWORD_FILE and restart the service; or",
    "  - run the service on PostgreSQL (DATABASE_URL), where commands and the service share the database.",
  ].join("\n");
}
