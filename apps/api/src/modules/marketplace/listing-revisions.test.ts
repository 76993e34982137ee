/**
 * Listing revisions (docs/decisions/0067-listing-revisions.md): what is public is the approved revision, on every
 * public surface (the feed, which MCP `find_apis` reads, /discovery/resources, /.well-known/x402, the gateway's
 * `bazaar` extension), until an operator approves the next one; renames and gateway changes are revisions too;
 * suspension takes a listing down everywhere; a listing never approved is never public; decisions name the
 * revision the operator saw.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditEvents, listings } from "@tollgate/db";
import { and, asc, eq } from "drizzle-orm";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChains, startTestChains } from "../../test/chains";
import {
  bearer,
  registrationBody,
  startTestApi,
  storageDatabaseKinds,
  type TestApi,
} from "../../test/harness";
import { approvedListingsOf } from "./discovery-service";
import {
  decide,
  pendingRevisionId,
  publication,
  signInOperator,
  type TestMerchant,
} from "./listings-testing";

type Surfaces = {
  /** Feed entries matching the listing's marker (title or merchant name). */
  feed: { merchant_name: string; title: string; route: string }[];
  discovery: { resource: string; merchant_name: unknown; title: unknown }[];
  wellKnown: string[];
  bazaar: string[];
};

describe.each(storageDatabaseKinds("postgres"))("listing revisions on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-revisions-"));
  let chains: LocalChains;
  let api: TestApi;
  let origin: Server;
  let upstreamUrl: string;
  let operator: { headers: Record<string, string>; id: string };
  let clockOffsetMs = 0;
  let counter = 0;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, ["amoy"]);
    api = await startTestApi(
      kind,
      { DATA_DIR: dataDir, CONFIRMATIONS_AMOY: "1", RATE_LIMIT_PUBLIC_PER_MINUTE: "1000" },
      { clock: { now: () => new Date(Date.now() + clockOffsetMs) } },
    );
    const upstream = express();
    upstream.all("/{*rest}", (_req, res) => {
      res.json({ ok: true });
    });
    origin = upstream.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => origin.once("listening", resolve));
    upstreamUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/api`;
    operator = await signInOperator(api);
  }, 120_000);

  afterAll(async () => {
    origin?.closeAllConnections();
    origin?.close();
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function merchantNamed(name: string): Promise<TestMerchant> {
    const created = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ name, network_mode: "test" }),
    });
    expect(created.status, created.text).toBe(201);
    return { id: String(created.json.merchant_id), secret: String(created.json.secret), name };
  }

  const setGateway = async (merchant: TestMerchant, slug: string, upstream = upstreamUrl) => {
    const response = await api.call("PUT", `/v1/merchants/${merchant.id}/gateway`, {
      headers: bearer(merchant.secret),
      body: { slug, upstream_url: upstream },
    });
    expect(response.status, response.text).toBeLessThan(300);
  };

  const listingOf = async (merchant: TestMerchant, id: string) =>
    (
      await api.call("GET", `/v1/merchants/${merchant.id}/listings/${id}`, {
        headers: bearer(merchant.secret),
      })
    ).json;

  const publish = async (merchant: TestMerchant, body: Record<string, unknown>) => {
    const created = await api.call("POST", `/v1/merchants/${merchant.id}/listings`, {
      headers: bearer(merchant.secret),
      body: { category: "tools", description: "Revision test", ...body },
    });
    expect(created.status, created.text).toBe(201);
    return String(created.json.id);
  };

  const approve = async (id: string) => {
    const response = await decide(api, operator, id, "approve");
    expect(response.status, response.text).toBe(200);
    return response;
  };

  /** Every public surface, past the 60 s caches, filtered to the entries carrying `marker`. */
  async function surfaces(merchant: TestMerchant, marker: string): Promise<Surfaces> {
    clockOffsetMs += 61_000;
    const hit = (text: unknown) => typeof text === "string" && text.includes(marker);
    const feed = await api.call("GET", "/api/network/marketplace?limit=100");
    expect(feed.status, feed.text).toBe(200);
    const discovery = await api.call("GET", "/discovery/resources?limit=100");
    expect(discovery.status, discovery.text).toBe(200);
    const wellKnown = await api.call("GET", "/.well-known/x402");
    expect(wellKnown.status, wellKnown.text).toBe(200);
    const items = (discovery.json.items as { resource: string; metadata: Record<string, unknown> }[]).filter(
      (item) => hit(item.metadata.title) || hit(item.metadata.merchant_name),
    );
    return {
      feed: (feed.json.listings as Surfaces["feed"]).filter((l) => hit(l.title) || hit(l.merchant_name)),
      discovery: items.map((item) => ({
        resource: item.resource,
        merchant_name: item.metadata.merchant_name,
        title: item.metadata.title,
      })),
      wellKnown: (wellKnown.json.resources as string[]).filter((url) =>
        items.some((item) => item.resource === url),
      ),
      bazaar: (await approvedListingsOf(api.deps, merchant.id))
        .filter((l) => hit(l.title))
        .map((l) => l.route),
    };
  }

  const auditActions = async (id: string) =>
    (
      await api.deps.db.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetType, "listing"), eq(auditEvents.targetId, id)))
        .orderBy(asc(auditEvents.seq))
    ).map((event) => ({
      action: event.action,
      actor: `${event.actorType}:${event.actorId}`,
      cause: (event.details as Record<string, unknown> | null)?.cause,
    }));

  it("a rename after approval changes no public surface until an operator approves it", async () => {
    const n = ++counter;
    const merchant = await merchantNamed(`Acme Original ${n}`);
    await setGateway(merchant, `acme-rename-${n}`);
    const id = await publish(merchant, { route: "/v1/rename", title: `Rename probe ${n}` });
    await approve(id);
    const before = await surfaces(merchant, `Rename probe ${n}`);
    expect(before.feed.map((l) => l.merchant_name)).toEqual([`Acme Original ${n}`]);
    expect(before.discovery.map((i) => i.merchant_name)).toEqual([`Acme Original ${n}`]);
    expect(before.wellKnown).toHaveLength(1);

    const renamed = await api.call("PATCH", `/v1/merchants/${merchant.id}`, {
      headers: bearer(merchant.secret),
      body: { name: `Evil Corp ${n}` },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await surfaces(merchant, `Rename probe ${n}`)).toEqual(before);
    const waiting = await listingOf(merchant, id);
    expect(waiting).toMatchObject({
      status: "approved",
      live_revision: { merchant_name: `Acme Original ${n}`, status: "approved" },
      pending_revision: { merchant_name: `Evil Corp ${n}`, status: "pending", cause: "merchant_renamed" },
    });
    // The queue shows it as waiting, with both revisions side by side.
    const queue = await api.call("GET", `/admin/api/marketplace?merchant_id=${merchant.id}`, {
      headers: operator.headers,
    });
    const queued = queue.json.listings as Record<string, unknown>[];
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      live_revision: { merchant_name: `Acme Original ${n}` },
      pending_revision: { merchant_name: `Evil Corp ${n}` },
    });

    await approve(id);
    const after = await surfaces(merchant, `Rename probe ${n}`);
    expect(after.feed.map((l) => l.merchant_name)).toEqual([`Evil Corp ${n}`]);
    expect(after.discovery.map((i) => i.merchant_name)).toEqual([`Evil Corp ${n}`]);
    expect(await auditActions(id)).toEqual([
      { action: "listing.revision.created", actor: `merchant:${merchant.id}`, cause: "listing_created" },
      { action: "listing.approved", actor: `admin:${operator.id}`, cause: undefined },
      { action: "listing.revision.created", actor: `merchant:${merchant.id}`, cause: "merchant_renamed" },
      { action: "listing.approved", actor: `admin:${operator.id}`, cause: undefined },
    ]);
  });

  it("a gateway route added or changed after approval is not exported until an operator approves it", async () => {
    const n = ++counter;
    const merchant = await merchantNamed(`Gateway Later ${n}`);
    const id = await publish(merchant, { route: "/v1/later", title: `Gateway probe ${n}` });
    await approve(id);
    const noGateway = await surfaces(merchant, `Gateway probe ${n}`);
    expect(noGateway.feed).toHaveLength(1);
    expect(noGateway.discovery).toEqual([]);

    await setGateway(merchant, `later-${n}`);
    const unreviewed = await surfaces(merchant, `Gateway probe ${n}`);
    expect(unreviewed.discovery).toEqual([]);
    expect(unreviewed.wellKnown).toEqual([]);
    expect(unreviewed.feed).toHaveLength(1);
    expect((await listingOf(merchant, id)).pending_revision).toMatchObject({
      cause: "gateway_changed",
      gateway: { slug: `later-${n}`, upstream_url: upstreamUrl },
    });

    await approve(id);
    const reviewed = await surfaces(merchant, `Gateway probe ${n}`);
    expect(reviewed.discovery.map((i) => new URL(i.resource).pathname)).toEqual([`/g/later-${n}/v1/later`]);
    expect(reviewed.wellKnown).toHaveLength(1);

    // Pointing the reviewed slug at another upstream: the export stops until the change is approved.
    await setGateway(merchant, `later-${n}`, `${upstreamUrl}/elsewhere`);
    const changed = await surfaces(merchant, `Gateway probe ${n}`);
    expect(changed.discovery).toEqual([]);
    expect(changed.wellKnown).toEqual([]);
    expect(changed.feed).toHaveLength(1);
    await approve(id);
    expect((await surfaces(merchant, `Gateway probe ${n}`)).discovery).toHaveLength(1);
  });

  it("suspension takes a listing off every surface, the merchant sees why, and republishing restores it", async () => {
    const n = ++counter;
    const merchant = await merchantNamed(`Suspended Co ${n}`);
    await setGateway(merchant, `suspended-${n}`);
    const id = await publish(merchant, { route: "/v1/down", title: `Suspend probe ${n}` });
    await approve(id);
    const live = await surfaces(merchant, `Suspend probe ${n}`);
    expect([live.feed.length, live.discovery.length, live.wellKnown.length, live.bazaar.length]).toEqual([
      1, 1, 1, 1,
    ]);

    const suspended = await publication(api, operator, id, "suspend", { reason: "Upstream serves malware" });
    expect(suspended.status, suspended.text).toBe(200);
    expect(suspended.json).toMatchObject({
      status: "suspended",
      suspension_reason: "Upstream serves malware",
    });
    expect(await surfaces(merchant, `Suspend probe ${n}`)).toEqual({
      feed: [],
      discovery: [],
      wellKnown: [],
      bazaar: [],
    });
    expect(await listingOf(merchant, id)).toMatchObject({
      status: "suspended",
      suspension_reason: "Upstream serves malware",
      published: null,
      live_revision: { status: "approved" },
    });
    const again = await publication(api, operator, id, "suspend");
    expect([again.status, again.json.code]).toEqual([409, "listing_not_approved"]);
    // An edit while suspended is reviewed, but approval does not republish.
    await api.call("PATCH", `/v1/merchants/${merchant.id}/listings/${id}`, {
      headers: bearer(merchant.secret),
      body: { description: "Fixed upstream" },
    });
    expect((await approve(id)).json.status).toBe("suspended");
    expect((await surfaces(merchant, `Suspend probe ${n}`)).feed).toEqual([]);

    const republished = await publication(api, operator, id, "republish");
    expect(republished.status, republished.text).toBe(200);
    expect(republished.json).toMatchObject({ status: "approved", suspension_reason: null });
    const back = await surfaces(merchant, `Suspend probe ${n}`);
    expect([back.feed.length, back.discovery.length, back.wellKnown.length, back.bazaar.length]).toEqual([
      1, 1, 1, 1,
    ]);
    const twice = await publication(api, operator, id, "republish");
    expect([twice.status, twice.json.code]).toEqual([409, "listing_not_suspended"]);
    const actions = (await auditActions(id)).map((a) => a.action);
    expect(actions.filter((a) => a === "listing.suspended" || a === "listing.republished")).toEqual([
      "listing.suspended",
      "listing.republished",
    ]);
    // Only operators may: a merchant secret is 401, a viewer 403, and nothing changes.
    const viewer = await signInOperator(api, "viewer");
    expect((await publication(api, viewer, id, "suspend")).status).toBe(403);
    expect((await publication(api, { headers: bearer(merchant.secret) }, id, "suspend")).status).toBe(401);
    const bad = await publication(api, operator, id, "suspend", { reason: "" });
    expect([bad.status, bad.json.code]).toEqual([400, "validation_failed"]);
    expect((await listingOf(merchant, id)).status).toBe("approved");
  });

  it("a listing never approved and rejected is never public; rejecting an edit keeps the live revision", async () => {
    const n = ++counter;
    const merchant = await merchantNamed(`Rejected Co ${n}`);
    await setGateway(merchant, `rejected-${n}`);
    const never = await publish(merchant, { route: "/v1/never", title: `Never probe ${n}` });
    expect((await decide(api, operator, never, "reject")).json.status).toBe("rejected");
    expect(await surfaces(merchant, `Never probe ${n}`)).toEqual({
      feed: [],
      discovery: [],
      wellKnown: [],
      bazaar: [],
    });
    const suspendRejected = await publication(api, operator, never, "suspend");
    expect([suspendRejected.status, suspendRejected.json.code]).toEqual([409, "listing_not_approved"]);

    const id = await publish(merchant, { route: "/v1/kept", title: `Kept probe ${n}` });
    await approve(id);
    await api.call("PATCH", `/v1/merchants/${merchant.id}/listings/${id}`, {
      headers: bearer(merchant.secret),
      body: { title: `Kept probe ${n} but spam` },
    });
    const rejected = await decide(api, operator, id, "reject", { reason: "Spam title" });
    expect(rejected.json).toMatchObject({
      status: "approved",
      rejection_reason: "Spam title",
      pending_revision: null,
      live_revision: { title: `Kept probe ${n}` },
    });
    const shown = await surfaces(merchant, `Kept probe ${n}`);
    expect(shown.feed.map((l) => l.title)).toEqual([`Kept probe ${n}`]);
    expect(shown.discovery.map((i) => i.title)).toEqual([`Kept probe ${n}`]);
  });

  it("a decision names the revision the operator saw: an edit in between is 409 and never goes live unseen", async () => {
    const n = ++counter;
    const merchant = await merchantNamed(`Racer ${n}`);
    const id = await publish(merchant, { route: "/v1/race", title: `Seen title ${n}` });
    const seen = await pendingRevisionId(api, id);
    await api.call("PATCH", `/v1/merchants/${merchant.id}/listings/${id}`, {
      headers: bearer(merchant.secret),
      body: { title: `Unseen title ${n}` },
    });
    for (const action of ["approve", "reject"] as const) {
      const stale = await decide(api, operator, id, action, {
        revision_id: seen,
        ...(action === "reject" ? { reason: "no" } : {}),
      });
      expect([stale.status, stale.json.code]).toEqual([409, "listing_revision_stale"]);
    }
    expect((await api.deps.db.db.select().from(listings).where(eq(listings.id, id)))[0]).toMatchObject({
      status: "pending",
      liveRevisionId: null,
    });

    // Parallel: whatever wins, the live revision is the one the operator named.
    for (let round = 0; round < 3; round++) {
      const named = await pendingRevisionId(api, id);
      const [edit, approval] = await Promise.all([
        api.call("PATCH", `/v1/merchants/${merchant.id}/listings/${id}`, {
          headers: bearer(merchant.secret),
          body: { title: `Race ${n}.${round}` },
        }),
        decide(api, operator, id, "approve", { revision_id: named }),
      ]);
      expect(edit.status, edit.text).toBe(200);
      const row = (await api.deps.db.db.select().from(listings).where(eq(listings.id, id)))[0]!;
      if (approval.status === 200) expect(row.liveRevisionId).toBe(named);
      else {
        expect([approval.status, approval.json.code]).toEqual([409, "listing_revision_stale"]);
        expect(row.liveRevisionId).not.toBe(named);
      }
      expect(row.pendingRevisionId).not.toBe(named);
    }
  });

  it("a SPEC client publishes with route, category, title and description only: tier defaults", async () => {
    const n = ++counter;
    const merchant = await merchantNamed(`Spec Client ${n}`);
    const created = await api.call("POST", `/v1/merchants/${merchant.id}/listings`, {
      headers: bearer(merchant.secret),
      body: { route: "/v1/spec", category: "data", title: "Spec only", description: "Four fields" },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ tier: "standard", status: "pending" });

    // No `standard` tier: the cheapest one (ties by name).
    const tiered = await api.call("POST", "/v1/merchants", {
      body: registrationBody({ name: `Tiered ${n}`, tiers: { pro: "0.5", basic: "0.01", alpha: "0.01" } }),
    });
    const owner = { id: String(tiered.json.merchant_id), secret: String(tiered.json.secret), name: "t" };
    const cheapest = await api.call("POST", `/v1/merchants/${owner.id}/listings`, {
      headers: bearer(owner.secret),
      body: { route: "/v1/spec", category: "data", title: "Spec only" },
    });
    expect(cheapest.status, cheapest.text).toBe(201);
    expect(cheapest.json.tier).toBe("alpha");
  });
});
