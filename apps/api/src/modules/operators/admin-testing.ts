/** Fixtures for operator route tests: an operator of a given role, signed in with a cookie. */
import type { AdminRole } from "@tollgate/db";
import { ADMIN_CSRF_HEADER } from "@tollgate/shared";
import type { TestApi } from "../../test/harness";
import { createAdmin } from "./admin-accounts";

export const TEST_PASSWORD = "correct horse battery staple";
let counter = 0;

export interface SignedIn {
  id: string;
  email: string;
  cookie: string;
  /** Cookie plus the same-origin proof: what the console sends with a state-changing request. */
  acting: Record<string, string>;
}

/** An admin account of `role` with the test password, created the way `pnpm admin:create` does. */
export async function createTestAdmin(api: TestApi, role: AdminRole): Promise<{ email: string }> {
  const email = `${role}${++counter}-${Date.now()}@example.com`;
  await createAdmin(
    api.deps.db.db,
    { email, password: TEST_PASSWORD, role },
    { now: api.deps.clock.now(), actor: { type: "system", id: "test" } },
  );
  return { email };
}

/** Signs in with a session cookie, as the console does. */
export async function signInAs(api: TestApi, role: AdminRole): Promise<SignedIn> {
  const { email } = await createTestAdmin(api, role);
  const response = await api.call("POST", "/api/admin/login", { body: { email, password: TEST_PASSWORD } });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${response.text}`);
  const line = response.headers.getSetCookie().find((value) => value.startsWith("tollgate_admin="));
  if (!line) throw new Error("no session cookie");
  const cookie = line.split(";")[0]!;
  const admin = response.json.admin as { id: string };
  return { id: admin.id, email, cookie, acting: { cookie, [ADMIN_CSRF_HEADER]: "1" } };
}
