/**
 * Operator benchmark (SPEC §4.3): GET /admin/api/overview latency with 100k settlements in the database, against a
 * baseline measured in the same run (GET /api/admin/me: session check + one-row read), and the admin sign-in time
 * (argon2id verification dominates). PGlite unless TEST_DATABASE_URL is set. No assertions: figures only.
 * Run: pnpm exec tsx bench/admin-overview.ts
 */

import { startTestApi } from "@tollgate/api/testing";
import { operatorBearer, seedSettlements } from "@tollgate/api/testing/admin";
import { percentile } from "./lib";

const SETTLEMENTS = Number(process.env.BENCH_SETTLEMENTS ?? 100_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const kind = process.env.TEST_DATABASE_URL ? "postgres" : "pglite";

const api = await startTestApi(kind, { LOGIN_FAILURES_PER_IP_PER_DAY: "100000" });
try {
  const logins: number[] = [];
  let headers: Record<string, string> = {};
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    headers = await operatorBearer(api, "viewer"); // creates the account (one hash) then signs in (one verification)
    logins.push(performance.now() - started);
  }
  const seedStarted = performance.now();
  await seedSettlements(api, SETTLEMENTS);
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  async function time(path: string): Promise<number[]> {
    const samples: number[] = [];
    await api.call("GET", path, { headers }); // warm
    for (let i = 0; i < ITERATIONS; i++) {
      const started = performance.now();
      const response = await api.call("GET", path, { headers });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text}`);
      samples.push(performance.now() - started);
    }
    return samples.sort((a, b) => a - b);
  }
  const baseline = await time("/api/admin/me");
  const overview = await time("/admin/api/overview");
  const page = await time("/admin/api/transactions?limit=50");
  const round = (n: number) => Math.round(n * 10) / 10;
  const row = (name: string, samples: number[]) => ({
    request: name,
    "p50 ms": round(percentile(samples, 50)),
    "p99 ms": round(percentile(samples, 99)),
    "p50 over baseline ms": round(percentile(samples, 50) - percentile(baseline, 50)),
  });
  console.log(
    `${kind}, ${SETTLEMENTS} settlements (seeded in ${seedSeconds.toFixed(1)} s), ${ITERATIONS} requests each`,
  );
  console.table([
    row("baseline GET /api/admin/me", baseline),
    row("GET /admin/api/overview", overview),
    row("GET /admin/api/transactions (50)", page),
  ]);
  logins.sort((a, b) => a - b);
  console.log(`admin create + sign-in (two argon2id operations): p50 ${round(percentile(logins, 50))} ms`);
} finally {
  await api.close();
}
