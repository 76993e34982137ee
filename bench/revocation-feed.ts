/**
 * Revocation feed benchmark (issue 19, docs/receipts.md): a merchant feed of 10,000 suspended/revoked receipts.
 *
 *   pnpm exec tsx bench/revocation-feed.ts
 *
 * Reports the feed's size on the wire, the gate's memory for the parsed list, the cost of one poll when the list
 * changed (200: fetch + parse) and when it did not (304 with If-None-Match), and the per-request `check()` cost.
 * The feed is served by the gate package's stand-in API over loopback HTTP. Prints figures only.
 */
import { RevocationFeed } from "@tollgate/gate";
import { startFakeTollgateApi } from "@tollgate/gate/testing";
import { table } from "./lib";

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
    const checks = 1_000_000;
    const t = performance.now();
    let hits = 0;
    for (let k = 0; k < checks; k++) {
      if (steady.check(`rcpt_${(k % (ENTRIES * 2)).toString(36).padStart(16, "0")}`).status === "listed")
        hits++;
    }
    const checkNs = ((performance.now() - t) * 1e6) / checks;

    console.log(
      table([
        { measure: "entries", value: ENTRIES },
        { measure: "feed size (bytes, uncompressed)", value: raw.length },
        { measure: "gate heap per parsed feed (bytes, approx.)", value: Math.round(heapPerFeed) },
        { measure: "poll, list changed (200), median ms", value: median(changed).toFixed(2) },
        { measure: "poll, unchanged (304), median ms", value: median(unchanged).toFixed(2) },
        { measure: "304 answers seen", value: api.feedNotModified - before304 },
        { measure: "check() per request, ns", value: checkNs.toFixed(0) },
        { measure: "listed hits in checks", value: hits },
      ]),
    );
  } finally {
    await api.close();
  }
}

await main();
