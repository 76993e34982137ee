/**
 * Parts of the scale-out drill (./scale-out.test.ts, docs/decisions/0063-scale-out-drill.md): whether the shared
 * PostgreSQL and Redis answer, a Redis logical database of the drill's own, what the database says about the
 * indexer lock and the settlements, and the agent's side of a paid call split across two API replicas.
 */
import { connect } from "node:net";
import type { Agent } from "@tollgate/api/testing/chains";
import { payBody } from "@tollgate/api/testing/chains";
import type { QuoteResponse } from "@tollgate/shared";
import { Redis } from "ioredis";
import type { Hash } from "viem";

/** Waits for `probe` to hold; the deadline only guards against a hang, the drill measures nothing with it. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  logs: () => string = () => "",
  deadlineMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** True when something accepts a TCP connection at the URL's host and port within `timeoutMs`. */
function answersTcp(url: string, defaultPort: number, timeoutMs = 1_500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Why the drill cannot run here, or undefined when PostgreSQL and Redis both answer. */
export async function missingServices(env: Readonly<Record<string, string | undefined>>) {
  const postgresUrl = env.TEST_DATABASE_URL || undefined;
  const redisUrl = env.TEST_REDIS_URL || undefined;
  if (!postgresUrl) return "TEST_DATABASE_URL is not set";
  if (!redisUrl) return "TEST_REDIS_URL is not set";
  if (!(await answersTcp(postgresUrl, 5432)))
    return `PostgreSQL at ${new URL(postgresUrl).host} does not answer`;
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_500 });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch {
    return `Redis at ${new URL(redisUrl).host} does not answer`;
  } finally {
    redis.disconnect();
  }
}

const CLAIM_KEY = "tollgate:drill:claim";

/**
 * A Redis logical database no one else uses (the API has no key prefix of its own): the first empty one of 1..15,
 * claimed with a marker key so two runs never share it; `release` empties it. The drill's processes use `url`.
 */
export async function claimRedisDatabase(serverUrl: string, owner: string) {
  for (let db = 1; db <= 15; db++) {
    const redis = new Redis(serverUrl, { db, maxRetriesPerRequest: 1 });
    try {
      if ((await redis.dbsize()) === 0 && (await redis.set(CLAIM_KEY, owner, "EX", 600, "NX")) === "OK") {
        const url = new URL(serverUrl);
        url.pathname = `/${db}`;
        return {
          db,
          url: url.toString(),
          redis,
          async release() {
            await redis.flushdb();
            redis.disconnect();
          },
        };
      }
    } catch (error) {
      redis.disconnect();
      throw error;
    }
    redis.disconnect();
  }
  throw new Error(`no free Redis logical database on ${new URL(serverUrl).host} (1..15 all hold keys)`);
}

/** A plain SQL session on the drill's database (a `postgres` client, as the database handle opens it). */
export interface SqlSession {
  unsafe<T>(query: string, params?: unknown[]): Promise<T>;
}

/** The `application_name` (PGAPPNAME) of the process holding the indexer's advisory lock for `chainId` here. */
export async function indexerLockHolder(sql: SqlSession, chainId: number): Promise<string | undefined> {
  // The indexer's key (apps/indexer/src/lock.ts): "tg" (0x7467) in the high 32 bits, the chain id in the low ones.
  // Other test databases on this server hold the same key: only this database's lock counts.
  const rows = await sql.unsafe<{ name: string }[]>(
    `select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.classid = $1 and l.objid = $2 and l.objsubid = 1
        and l.database = (select oid from pg_database where datname = current_database())`,
    [0x7467, chainId],
  );
  return rows[0]?.name;
}

/** Connections of this database by `application_name`. */
export async function connectedApps(sql: SqlSession): Promise<Set<string>> {
  const rows = await sql.unsafe<{ name: string }[]>(
    "select distinct application_name as name from pg_stat_activity where datname = current_database()",
  );
  return new Set(rows.map((row) => row.name));
}

export interface SettlementRow {
  tx_hash: string;
  log_index: number;
  state: string;
  quote_id: string | null;
}

export async function settlementsOf(sql: SqlSession, chainId: number): Promise<SettlementRow[]> {
  return sql.unsafe<SettlementRow[]>(
    "select tx_hash, log_index, state, quote_id from settlements where chain_id = $1 order by block_number, log_index",
    [chainId],
  );
}

/** `settlement.confirmed` outbox events per settlement (tx hash and log index), from their payloads. */
export async function confirmedEventCounts(sql: SqlSession): Promise<Map<string, number>> {
  const rows = await sql.unsafe<{ at: string; n: number }[]>(
    `select lower(payload->>'tx_hash') || ':' || (payload->>'log_index') as at, count(*)::int as n
       from webhook_events where type = 'settlement.confirmed' group by 1`,
  );
  return new Map(rows.map((row) => [row.at, row.n]));
}

export interface Answer {
  status: number;
  json: Record<string, unknown>;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** `POST /v1/quote` for `units` of the tier, paid in the chain's native POL (no approval step). */
export async function quoteAt(
  apiUrl: string,
  merchantId: string,
  agent: Agent,
  units = 1,
): Promise<QuoteResponse> {
  const quoted = await postJson(`${apiUrl}/v1/quote`, {
    merchant_id: merchantId,
    resource: "/search",
    tier: "standard",
    payer: agent.address,
    asset: "POL",
    units,
  });
  if (quoted.status !== 200)
    throw new Error(`quote at ${apiUrl}: ${quoted.status} ${JSON.stringify(quoted.json)}`);
  return quoted.json as unknown as QuoteResponse;
}

/** One `/v1/pay` request: its Idempotency-Key (16 to 255 characters) and its body, signed by the payer. */
export interface PayRequest {
  key: string;
  body: Record<string, unknown>;
}

export async function payRequest(
  agent: Agent,
  quote: QuoteResponse,
  tx: Hash,
  name: string,
): Promise<PayRequest> {
  const key = `drill-${name}-${quote.quote_id}`;
  return { key, body: await payBody(agent, quote, tx, key) };
}

/** Sends `request` (the same bytes every time, as a retrying client does) to one replica. */
export function payAt(apiUrl: string, request: PayRequest): Promise<Answer> {
  return postJson(`${apiUrl}/v1/pay`, request.body, { "idempotency-key": request.key });
}

/**
 * Counts answers of a stream of cheap reads spread round-robin over the replicas, as a load balancer without
 * retries would send them: what a client sees while one replica dies.
 */
export function startTraffic(urls: readonly string[], path: string) {
  const tally = urls.map(() => ({ ok: 0, failed: 0 }));
  let running = true;
  const loop = (async () => {
    for (let k = 0; running; k++) {
      const at = k % urls.length;
      const ok = await fetch(`${urls[at]}${path}`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.ok,
        () => false,
      );
      const counts = tally[at];
      if (counts) counts[ok ? "ok" : "failed"]++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    tally,
    async stop() {
      running = false;
      await loop;
      return tally;
    },
  };
}
