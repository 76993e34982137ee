/** `pnpm db:migrate`: applies migrations to DATABASE_URL, or to the embedded PGlite in DATA_DIR. */
import { join } from "node:path";
import { openDatabase } from "@tollgate/db";
import { loadEnv } from "../env";

const env = loadEnv();
const handle = env.databaseUrl
  ? await openDatabase({ kind: "postgres", url: env.databaseUrl })
  : await openDatabase({ kind: "pglite", dataDir: join(env.dataDir, "pglite") });
await handle.migrate();
await handle.close();
console.log(
  `migrations applied to ${env.databaseUrl ? "postgres" : `pglite at ${join(env.dataDir, "pglite")}`}`,
);
