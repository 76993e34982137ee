/**
 * `pnpm admin:unlock [--email <e>] [--client <address>]`: lifts sign-in waits (decision 0064): every wait of an
 * email (from any client), of a client address (an IPv6 address names its /64) with every account on it, or of
 * that one pair when both are given; audited as `admin.login.unlocked`. The waits live in Redis when REDIS_URL is
 * set; without it they are in the API process's memory, which no command can reach: it says so and changes
 * nothing (every wait ends by itself within LOGIN_MAX_DELAY_SECONDS, and a restart forgets them all).
 */
import { parseArgs } from "node:util";
import { DatabaseLockedError, openDatabase, prepareSchema } from "@tollgate/db";
import { Redis } from "ioredis";
import { EnvError, loadEnv } from "../env";
import { createLoginLimiter, unlockSignIns } from "../modules/operators";
import { lockedDatabaseHelp } from "./database-help";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { email: { type: "string" }, client: { type: "string" } } });
  if (!values.email && !values.client) {
    console.error("usage: pnpm admin:unlock [--email <you@example.com>] [--client <address>] (at least one)");
    return 2;
  }
  const env = loadEnv();
  if (!env.redisUrl) {
    console.error(
      [
        "✖ REDIS_URL is not set: the sign-in limiter lives in the API process's memory, and no command can reach it.",
        `  Every wait ends by itself within LOGIN_MAX_DELAY_SECONDS (${env.admin.login.maxDelaySeconds} s here);`,
        "  restarting the API forgets them all. Nothing was changed.",
      ].join("\n"),
    );
    return 1;
  }
  const handle = env.databaseUrl
    ? await openDatabase({ kind: "postgres", url: env.databaseUrl, maxConnections: 2 })
    : await openDatabase({ kind: "pglite", dataDir: `${env.dataDir}/pglite` });
  const redis = new Redis(env.redisUrl, {
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  });
  redis.on("error", () => {});
  try {
    // The trail must be writable before anything is cleared: an unlock is never left unaudited.
    await prepareSchema(handle, { migrate: env.schema.migrate, waitMs: 0 });
    const limiter = createLoginLimiter(env.admin.login, { client: redis, prefix: env.redisKeyPrefix });
    const result = await unlockSignIns(
      { db: handle.db, limiter, now: () => new Date() },
      { email: values.email, address: values.client },
      { type: "system", id: "cli" },
    );
    const what = [values.email, result.client].filter(Boolean).join(" from ");
    console.log(
      `✔ sign-in waits lifted for ${what}: ${result.cleared.length} limiter entries cleared` +
        (result.refused > 0 ? `, ${result.refused} refused attempts recorded` : ""),
    );
    return 0;
  } finally {
    redis.disconnect();
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof DatabaseLockedError) console.error(lockedDatabaseHelp(error, "pnpm admin:unlock"));
    else if (error instanceof EnvError) console.error(error.message);
    else console.error(`✖ ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
