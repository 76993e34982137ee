/**
 * Revocation feed benchmark (docs/receipts.md): a merchant feed of 10,000 suspended/revoked receipts.
 *
 *   pnpm exec tsx bench/revocation-feed.ts
 *
 * Reports the feed's size on the wire, the gate's memory for the parsed list, the cost of one poll when the list
 * changed (200: fetch + parse) and when it did not (304 with If-None-Match), and the per-request `check()` cost.
 * The feed is served by the gate package's stand-in API over loopback HTTP (the same wire format and ETag rules as
 * the API's feed: this measures the gate's side). Baselines from the same run: a bare `fetch` + `JSON.parse` of the
 * same bytes (200), a bare conditional `fetch` (304), and a plain `Map#get` over the same ids (`check()`); the
 * ratio column is gate / baseline. Figures also go to bench/results/revocation-feed.json.
 */
import { RevocationFeed } from "@tollgate/gate";
import { startFakeTollgateApi } from "@tollgate/gate/testing";
import { table, writeResults } from "./lib";

const MERCHANT = "mrch_BenchRevocations111";
const ENTRIES = 10_000;
const POLLS = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main() {
  const api = await startFakeTollgateApi({ merchants: { [MERCHANT]: { standard: "0.01" } } });
  try {
    const exp = Math.floor(Date.now() / 1000) + 86_400;
    const listed = new Map<string, { state: "suspended" | "revoked"; exp: number }>();
    for (let k = 0; k < ENTRIES; k++) {
      listed.set(`rcpt_${k.toString(36).padStart(16, "0")}`, { state: k % 2 ? "revoked" : "suspended", exp });
    }
    api.revocations.set(MERCHANT, listed);
    const raw = await (await fetch(`${api.url}/v1/merchants/${MERCHANT}/revocations`)).text();

    const heapBefore = process.memoryUsage().heapUsed;
    const feeds: RevocationFeed[] = [];
    // Several feeds so the heap delta is above the noise; reported per feed.
    for (let k = 0; k < 5; k++) {
      const feed = new RevocationFeed({ apiBaseUrl: api.url, merchantId: MERCHANT });
      await feed.poll();
      feeds.push(feed);
    }
    const heapPerFeed = (process.memoryUsage().heapUsed - heapBefore) / feeds.length;

    const changed: number[] = [];
    for (let k = 0; k < POLLS; k++) {
      const feed = new RevocationFeed({ apiBaseUrl: api.url, merchantId: MERCHANT });
      const t = performance.now();
      await feed.poll();
      changed.push(performance.now() - t);
    }
    const steady = feeds[0]!;
    const unchanged: number[] = [];
    const before304 = api.feedNotModified;
    for (let k = 0; k < POLLS; k++) {
      const t = performance.now();
      await steady.poll();
      unchanged.push(performance.now() - t);
    }
    // Baselines: the same HTTP exchanges and lookups without the gate's feed around them.
    const feedUrl = `${api.url}/v1/merchants/${MERCHANT}/revocations`;
    const rawChanged: number[] = [];
    let etag = "";
    for (let k = 0; k < POLLS; k++) {
      const t0 = performance.now();
      const res = await fetch(feedUrl);
      JSON.parse(await res.text());
      etag = res.headers.get("etag") ?? "";
      rawChanged.push(performance.now() - t0);
    }
    const rawUnchanged: number[] = [];
    for (let k = 0; k < POLLS; k++) {
      const t0 = performance.now();
      const res = await fetch(feedUrl, { headers: { "if-none-match": etag } });
      await res.arrayBuffer();
      rawUnchanged.push(performance.now() - t0);
    }
    const checks = 1_000_000;
    const plain = new Map([...listed.keys()].map((id) => [id, true]));
    const tMap = performance.now();
    let mapHits = 0;
    for (let k = 0; k < checks; k++) {
      if (plain.get(`rcpt_${(k % (ENTRIES * 2)).toString(36).padStart(16, "0")}`)) mapHits++;
    }
    const mapNs = ((performance.now() - tMap) * 1e6) / checks;
    const t = performance.now();
    let hits = 0;
    for (let k = 0; k < checks; k++) {
      if (steady.check(`rcpt_${(k % (ENTRIES * 2)).toString(36).padStart(16, "0")}`).status === "listed")
        hits++;
    }
    const checkNs = ((performance.now() - t) * 1e6) / checks;

    const figures = {
      entries: ENTRIES,
      feed_bytes: raw.length,
      heap_per_feed_bytes: Math.round(heapPerFeed),
      poll_changed_ms: median(changed),
      raw_changed_ms: median(rawChanged),
      poll_unchanged_ms: median(unchanged),
      raw_unchanged_ms: median(rawUnchanged),
      check_ns: checkNs,
      map_get_ns: mapNs,
      not_modified_seen: api.feedNotModified - before304,
      listed_hits: hits,
      map_hits: mapHits,
    };
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log(
      `feed: ${ENTRIES} entries, ${raw.length} bytes uncompressed, ~${figures.heap_per_feed_bytes} bytes of gate heap`,
    );
    console.log(
      table([
        {
          measure: "poll, list changed (200), median ms",
          gate: figures.poll_changed_ms.toFixed(2),
          baseline: figures.raw_changed_ms.toFixed(2),
          "baseline is": "fetch + JSON.parse",
          ratio: ratio(figures.poll_changed_ms, figures.raw_changed_ms),
        },
        {
          measure: "poll, unchanged (304), median ms",
          gate: figures.poll_unchanged_ms.toFixed(2),
          baseline: figures.raw_unchanged_ms.toFixed(2),
          "baseline is": "conditional fetch",
          ratio: ratio(figures.poll_unchanged_ms, figures.raw_unchanged_ms),
        },
        {
          measure: "check() per request, ns",
          gate: checkNs.toFixed(0),
          baseline: mapNs.toFixed(0),
          "baseline is": "Map#get",
          ratio: ratio(checkNs, mapNs),
        },
      ]),
    );
    if (hits !== mapHits) throw new Error(`check() listed ${hits} ids, the plain map ${mapHits}`);
    console.log(`written ${writeResults("revocation-feed", figures)}`);
  } finally {
    await api.close();
  }
}

await main();
