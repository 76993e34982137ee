/**
 * `pnpm --filter @tollgate/indexer replay-webhook <evt_...> [...]`: puts dead or failed deliveries back in the
 * queue with their event id (hence `webhook-id`) unchanged, so receivers deduplicate them (DESIGN.md §8).
 * With the embedded PGlite, stop `pnpm start` first (one process owns the data directory).
 */
import { join } from "node:path";
import { openDatabase } from "@tollgate/db";
import { isId } from "@tollgate/shared/ids";
import { replayDelivery } from "@tollgate/webhooks";
import { loadIndexerEnv } from "../env";

const ids = process.argv.slice(2);
if (ids.length === 0 || ids.some((id) => !isId("event", id))) {
  console.error("usage: replay-webhook <evt_...> [<evt_...> ...]");
  process.exit(2);
}
const env = loadIndexerEnv();
const db = env.databaseUrl
  ? await openDatabase({ kind: "postgres", url: env.databaseUrl })
  : await openDatabase({ kind: "pglite", dataDir: join(env.dataDir, "pglite") });
let missing = 0;
for (const id of ids) {
  const replayed = await replayDelivery(db.db, id, new Date());
  console.log(replayed ? `${id}: queued again` : `${id}: no dead or failed delivery with this event id`);
  if (!replayed) missing++;
}
await db.close();
process.exit(missing > 0 ? 1 : 0);
