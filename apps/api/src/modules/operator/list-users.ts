import { adminProcedure } from "../operators";
import type { OperatorDeps } from "./deps";
import { ZListUsersRequest, ZListUsersResponse } from "./list-users.types";
import { listUsers } from "./users-view";

/** GET /admin/api/users (SPEC §4.3): operator accounts or wallet accounts (`kind`), oldest first. */
export const listUsersProcedure = (deps: OperatorDeps) =>
  adminProcedure(deps.adminAuth)
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/api/users",
        tags: ["operators"],
        summary: "Operator and wallet user accounts",
        description:
          "kind=admin (default): operator accounts, filter by role. kind=wallet: accounts signed in with a wallet " +
          "(SIWE or the Solana form) with their linked wallets, filter by wallet address. Both filter by disabled; " +
          "oldest first (`sort`: created_at, `-created_at` newest first), cursor-paginated, with `total` the exact count. " +
          "No password hash or session token is included.",
        errorResponses: [400, 401],
      },
    })
    .input(ZListUsersRequest)
    .output(ZListUsersResponse)
    .query(({ input }) => listUsers(deps, { ...input, limit: input.limit ?? 50 }));
