/**
 * `GET /api/network/marketplace` requests per second with 10,000 approved listings (SPEC §3.1, §8), cached (the 60 s
 * feed cache answers) and uncached (a clock that jumps past the TTL on every read, so each request queries the
 * database), next to `/healthz` measured in the same run. PostgreSQL runs when TEST_DATABASE_URL is set.
 * Run: pnpm exec tsx bench/marketplace-feed.ts
 */
import {
  createTestDatabase,
  seedApprovedListings,
  startTestApi,
  testDatabaseKinds,
} from "@tollgate/api/testing";
import { load, table } from "./lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);
const UNLIMITED = { RATE_LIMIT_PUBLIC_PER_MINUTE: "100000000" };

/** Every read is 61 s after the previous one: the feed cache never hits. */
function jumpingClock() {
  let offset = 0;
  return {
    now: () => {
      offset += 61_000;
      return new Date(Date.now() + offset);
    },
  };
}

const rows: Record<string, string | number>[] = [];
for (const kind of testDatabaseKinds()) {
  const db = await createTestDatabase(kind);
  await seedApprovedListings(db.db, LISTINGS);
  const cached = await startTestApi(kind, UNLIMITED, { db });
  const uncached = await startTestApi(kind, UNLIMITED, { db, clock: jumpingClock() });
  try {
    const get = (baseUrl: string, path: string) => async () => {
      const response = await fetch(`${baseUrl}${path}`);
      await response.arrayBuffer();
      return response.status === 200;
    };
    const scenarios: [string, () => Promise<boolean>][] = [
      ["GET /healthz (baseline)", get(cached.baseUrl, "/healthz")],
      ["feed, cached", get(cached.baseUrl, "/api/network/marketplace")],
      [
        "feed ?category=data&q=seeded, cached",
        get(cached.baseUrl, "/api/network/marketplace?category=data&q=seeded"),
      ],
      ["feed, uncached", get(uncached.baseUrl, "/api/network/marketplace")],
      [
        "feed ?category=data&q=seeded, uncached",
        get(uncached.baseUrl, "/api/network/marketplace?category=data&q=seeded"),
      ],
    ];
    for (const [name, fn] of scenarios) {
      const result = await load(fn, CONCURRENCY, SECONDS);
      rows.push({
        database: kind,
        listings: LISTINGS,
        scenario: name,
        "req/s": result.rps,
        "p50 ms": result.p50Ms,
        "p99 ms": result.p99Ms,
        errors: result.errors,
      });
    }
  } finally {
    await cached.close();
    await uncached.close();
    await db.close();
  }
}
console.log(table(rows));
