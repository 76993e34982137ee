import type { Context } from "../../trpc/trpc";
import type { UserAuthDeps } from "./user-accounts";

/** The sign-in service's dependencies from a request context. */
export function userAuthDeps(ctx: Pick<Context, "deps">): UserAuthDeps {
  const users = ctx.deps.users;
  return {
    db: ctx.deps.db.db,
    policy: users.sessionPolicy,
    verifier: users.verifier,
    expectation: users.expectation,
    now: () => ctx.deps.clock.now(),
  };
}
