import type { UsersModuleDeps } from "./deps";
import type { UserAuthDeps } from "./user-accounts";

/** The sign-in service's dependencies from the module's. */
export function userAuthDeps(deps: UsersModuleDeps): UserAuthDeps {
  return {
    db: deps.db.db,
    policy: deps.userAuth.sessionPolicy,
    verifier: deps.signin.verifier,
    expectation: deps.signin.expectation,
    now: () => deps.clock.now(),
  };
}
