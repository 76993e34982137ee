import { auditEvents, servicePauses } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, storageDatabaseKinds, type TestApi } from "../../test/harness";
import { type SignedIn, signInAs } from "../operators/admin-testing";

describe.each(storageDatabaseKinds("pglite"))("POST /api/admin/unpause on %s", (kind) => {
  let api: TestApi;
  let operator: SignedIn;
  beforeAll(async () => {
    api = await startTestApi(kind);
    operator = await signInAs(api, "operator");
  });
  afterAll(async () => {
    await api?.close();
  });
  const unpause = (body: unknown, headers = operator.acting) =>
    api.call("POST", "/api/admin/unpause", { body, headers });

  it("happy: lifts exactly the named scope and records who and why", async () => {
    await api.call("POST", "/api/admin/pause", {
      body: { scope: "base", reason: "upgrade" },
      headers: operator.acting,
    });
    const lifted = await unpause({ scope: "base", reason: "upgrade done" });
    expect(lifted.status, lifted.text).toBe(200);
    expect(lifted.json).toMatchObject({
      lifted: { scope: "base", reason: "upgrade", paused_by: operator.id },
      paused: [],
    });
    expect(await api.deps.db.db.select().from(servicePauses)).toEqual([]);
    const [event] = await api.deps.db.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "service.unpaused"));
    expect(event).toMatchObject({
      actorId: operator.id,
      targetId: "base",
      details: { reason: "upgrade done" },
    });
  });

  it("error: a scope that is not paused is 409 not_paused; a bad scope is 400", async () => {
    const response = await unpause({ scope: "polygon", reason: "nothing to lift" });
    expect(response.status).toBe(409);
    expect(response.json.code).toBe("not_paused");
    expect((await unpause({ scope: "everything", reason: "nope" })).status).toBe(400);
    expect((await unpause({ scope: "all", reason: "\r\n" })).status).toBe(400);
  });

  it("security: a viewer or a request without the same-origin proof cannot lift a pause", async () => {
    await api.call("POST", "/api/admin/pause", {
      body: { scope: "all", reason: "hold" },
      headers: operator.acting,
    });
    const viewer = await signInAs(api, "viewer");
    expect((await unpause({ scope: "all", reason: "let me" }, viewer.acting)).json.code).toBe(
      "admin_role_forbidden",
    );
    expect((await unpause({ scope: "all", reason: "let me" }, { cookie: operator.cookie })).json.code).toBe(
      "csrf_check_failed",
    );
    expect((await unpause({ scope: "all", reason: "let me" }, {})).status).toBe(401);
    expect((await api.deps.db.db.select().from(servicePauses)).map((row) => row.scope)).toEqual(["all"]);
  });
});
