/**
 * `find_apis` serves approved listing revisions only (docs/decisions/0067-listing-revisions.md): the SDK's own
 * Client over an in-memory transport, against a real API on loopback. A merchant rename after approval is not
 * shown until an operator approves it; a suspended listing is not found.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "@tollgate/api/testing";
import { operatorBearer } from "@tollgate/api/testing/admin";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config";
import { createRuntime } from "./runtime";
import { createMcpServer } from "./server";

describe.each(storageDatabaseKinds("postgres"))("find_apis on %s", (kind) => {
  const work = mkdtempSync(join(tmpdir(), "tollgate-mcp-find-"));
  let api: TestApi;
  let client: Client;
  let operator: Record<string, string>;
  let clockOffsetMs = 0;

  beforeAll(async () => {
    api = await startTestApi(
      kind,
      { RATE_LIMIT_PUBLIC_PER_MINUTE: "1000" },
      { clock: { now: () => new Date(Date.now() + clockOffsetMs) } },
    );
    operator = await operatorBearer(api, "operator");
    const config = loadConfig(["--stdio"], { TOLLGATE_API_URL: api.baseUrl }, work);
    if (!config) throw new Error("no config");
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(createRuntime(config)).connect(serverSide);
    client = new Client({ name: "find-apis-test", version: "1.0.0" });
    await client.connect(clientSide);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await api?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** `find_apis` past the feed's 60 s cache. */
  async function findApis(q: string): Promise<{ merchant_name: string; title: string }[]> {
    clockOffsetMs += 61_000;
    const result = (await client.callTool({ name: "find_apis", arguments: { q } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    const body = JSON.parse(result.content[0]!.text) as {
      listings: { merchant_name: string; title: string }[];
    };
    expect(result.isError, result.content[0]!.text).toBeFalsy();
    return body.listings;
  }

  async function decide(id: string, action: string, body: Record<string, unknown> = {}) {
    const response = await api.call("POST", `/admin/api/marketplace/${id}/${action}`, {
      headers: operator,
      body,
    });
    expect(response.status, response.text).toBe(200);
    return response.json;
  }

  it("shows the approved revision: a rename waits for approval, a suspended listing is gone", async () => {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ name: "Mcp Original" }),
    });
    const merchant = { id: String(created.json.merchant_id), secret: String(created.json.secret) };
    const listing = await api.call("POST", `/v1/merchants/${merchant.id}/listings`, {
      headers: bearer(merchant.secret),
      body: { route: "/v1/mcp", category: "tools", title: "Mcp find probe" },
    });
    expect(listing.status, listing.text).toBe(201);
    const id = String(listing.json.id);
    expect(await findApis("Mcp find probe")).toEqual([]);
    await decide(id, "approve", { revision_id: (listing.json.pending_revision as { id: string }).id });
    expect((await findApis("Mcp find probe")).map((l) => l.merchant_name)).toEqual(["Mcp Original"]);

    const renamed = await api.call("PATCH", `/v1/merchants/${merchant.id}`, {
      headers: bearer(merchant.secret),
      body: { name: "Mcp Impostor" },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await findApis("Mcp find probe")).map((l) => l.merchant_name)).toEqual(["Mcp Original"]);
    expect(await findApis("Mcp Impostor")).toEqual([]);

    const view = await api.call("GET", `/v1/merchants/${merchant.id}/listings/${id}`, {
      headers: bearer(merchant.secret),
    });
    await decide(id, "approve", { revision_id: (view.json.pending_revision as { id: string }).id });
    expect((await findApis("Mcp find probe")).map((l) => l.merchant_name)).toEqual(["Mcp Impostor"]);

    await decide(id, "suspend", { reason: "Impersonation" });
    expect(await findApis("Mcp find probe")).toEqual([]);
  });
});
