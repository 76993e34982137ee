import { auditEvents, bridgeProviders } from "@tollgate/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageDatabaseKinds, type TestApi } from "../../test/harness";
import { signInOperator } from "../marketplace/listings-testing";
import { signInAs } from "../operators/admin-testing";
import { PROVIDERS_PATH, seedProvider, servedIds, startBridgeApi } from "./providers-testing";

describe.each(storageDatabaseKinds("pglite"))(
  "POST /admin/api/bridge/providers/{id}/disable on %s",
  (kind) => {
    let api: TestApi;
    let operator: { headers: Record<string, string>; id: string };
    beforeAll(async () => {
      api = await startBridgeApi(kind, [seedProvider("alpha"), seedProvider("beta"), seedProvider("gamma")]);
      operator = await signInOperator(api);
    });
    afterAll(async () => {
      await api?.close();
    });

    const disable = (id: string, headers = operator.headers) =>
      api.call("POST", `${PROVIDERS_PATH}/${id}/disable`, { headers, body: {} });
    const stored = async (id: string) =>
      (await api.deps.db.db.select().from(bridgeProviders).where(eq(bridgeProviders.id, id)))[0];
    const auditFor = (id: string) =>
      api.deps.db.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetType, "bridge_provider"), eq(auditEvents.targetId, id)));

    describe("happy", () => {
      it("stops selling the provider at once, keeps the row, audits once; twice changes nothing", async () => {
        expect(await servedIds(api)).toEqual(["alpha", "beta", "gamma"]);
        const disabled = await disable("alpha");
        expect(disabled.status, disabled.text).toBe(200);
        expect(disabled.json).toMatchObject({ changed: true, provider: { id: "alpha", enabled: false } });
        expect(await servedIds(api)).toEqual(["beta", "gamma"]);
        const paid = await api.call("GET", "/bridge/alpha/anything");
        expect(paid.status).toBe(404);
        expect(paid.json.code).toBe("provider_not_found");
        expect((await stored("alpha"))?.disabledAt).toBeInstanceOf(Date);
        const again = await disable("alpha");
        expect(again.status).toBe(200);
        expect(again.json.changed).toBe(false);
        expect(await auditFor("alpha")).toHaveLength(1);
        const list = await api.call("GET", PROVIDERS_PATH, { headers: operator.headers });
        expect(
          (list.json.providers as { id: string; enabled: boolean }[]).find((p) => p.id === "alpha"),
        ).toMatchObject({ enabled: false });
      });
    });

    describe("errors", () => {
      it("an unknown id is 404, a malformed one 400", async () => {
        const unknown = await disable("nobody");
        expect(unknown.status).toBe(404);
        expect(unknown.json.code).toBe("provider_not_found");
        for (const bad of ["Beta", "be_ta", "a.b", "healthz"]) {
          const response = await disable(bad);
          expect(response.status, `${bad}: ${response.text}`).toBe(400);
        }
      });
    });

    describe("security", () => {
      it("needs an operator session with the same-origin proof; viewers are refused; nothing changes", async () => {
        expect((await disable("beta", {})).status).toBe(401);
        const viewer = await signInOperator(api, "viewer");
        expect((await disable("beta", viewer.headers)).status).toBe(403);
        const cookie = await signInAs(api, "operator");
        const noProof = await disable("beta", { cookie: cookie.cookie });
        expect(noProof.status).toBe(403);
        expect(noProof.json.code).toBe("csrf_check_failed");
        expect((await stored("beta"))?.disabledAt).toBeNull();
        expect(await auditFor("beta")).toHaveLength(0);
        expect(await servedIds(api)).toContain("beta");
      });
    });
  },
);
