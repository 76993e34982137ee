import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { signInAs } from "../operators/admin-testing";
import { operatorBearer, registerMerchant } from "../operators/testing";

const TOKEN = "metrics-token-for-tests-0123456789";
// What a Prometheus server sends (scrape_protocols default).
const PROMETHEUS_ACCEPT =
  "application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";

describe.each(storageDatabaseKinds("postgres"))("GET /api/metrics access and formats on %s", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, { METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("security: no credential, a wrong or near token, a merchant secret or an unknown session is a 401 problem", async () => {
    const merchant = await registerMerchant(api);
    const refusals: [string, Record<string, string>][] = [
      ["none", {}],
      ["wrong token", bearer("metrics-token-for-tests-0123456788")],
      ["token prefix", bearer(TOKEN.slice(0, -1))],
      ["token plus", bearer(`${TOKEN}x`)],
      ["basic", { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` }],
      ["merchant secret", bearer(merchant.secret)],
      ["unknown session", bearer("ases_unknownsessiontoken000000")],
      ["forged cookie", { cookie: "tollgate_admin=ases_forged0000000000000000" }],
    ];
    for (const [name, headers] of refusals) {
      const response = await api.call("GET", "/api/metrics", { headers });
      expect(response.status, name).toBe(401);
      expect(response.headers.get("content-type"), name).toContain("application/problem+json");
      expect(["metrics_auth_required", "admin_auth_required"], name).toContain(response.json.code);
      expect(response.text, name).not.toContain("tollgate_indexer");
    }
    const none = await api.call("GET", "/api/metrics");
    expect(none.json.code).toBe("metrics_auth_required");
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("happy: a scraper with the token gets Prometheus text that a parser reads, with process defaults", async () => {
    const response = await api.call("GET", "/api/metrics", {
      headers: { ...bearer(TOKEN), accept: PROMETHEUS_ACCEPT },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const families = parsePrometheusTextFormat(response.text);
    const byName = new Map(families.map((family) => [family.name, family]));
    for (const name of [
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
      "process_cpu_user_seconds_total",
      "nodejs_eventloop_delay_seconds",
    ]) {
      expect(byName.has(name), name).toBe(true);
    }
    expect(byName.get("nodejs_eventloop_delay_seconds")?.type).toBe("GAUGE");
    expect(Number(byName.get("process_resident_memory_bytes")?.metrics[0]?.value)).toBeGreaterThan(0);
  });

  it("happy: an operator session (cookie or bearer) opens it; Accept: application/json gets the JSON view", async () => {
    const viewer = await signInAs(api, "viewer");
    const text = await api.call("GET", "/api/metrics", { headers: { cookie: viewer.cookie } });
    expect(text.status, text.text).toBe(200);
    expect(text.headers.get("content-type")).toContain("text/plain");
    const asTool = await api.call("GET", "/api/metrics", { headers: await operatorBearer(api) });
    expect(asTool.status, asTool.text).toBe(200);
    const json = await api.call("GET", "/api/metrics", {
      headers: { cookie: viewer.cookie, accept: "application/json" },
    });
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toContain("application/json");
    const metrics = json.json.metrics as { name: string; type: string; values: unknown[] }[];
    expect(metrics.find((family) => family.name === "nodejs_eventloop_delay_seconds")).toMatchObject({
      type: "gauge",
    });
  });
});

describe.each(storageDatabaseKinds("postgres"))("GET /api/metrics without METRICS_TOKEN on %s", (kind) => {
  it("security: any bearer but an operator session is refused", async () => {
    const api = await startTestApi(kind);
    try {
      for (const headers of [{}, bearer(TOKEN), { authorization: "Bearer " }]) {
        const response = await api.call("GET", "/api/metrics", { headers });
        expect(response.status).toBe(401);
        expect(response.json.code).toBe("metrics_auth_required");
      }
    } finally {
      await api.close();
    }
  });
});
