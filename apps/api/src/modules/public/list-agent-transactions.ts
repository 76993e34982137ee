import { publicProcedure } from "../../trpc/trpc";
import { listAgentTransactions } from "./agent-transaction-service";
import type { PublicDeps } from "./deps";
import {
  type TListAgentTransactionsResponse,
  ZListAgentTransactionsRequest,
  ZListAgentTransactionsResponse,
} from "./list-agent-transactions.types";

/**
 * GET /v1/agents/{address}/transactions (SPEC §4.2): the agent's splitter settlements as indexed, newest
 * first, cursor-paginated; EVM in any case, Solana answered empty (agent-transaction-service.ts).
 */
export const listAgentTransactionsProcedure = (deps: PublicDeps) =>
  publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/agents/{address}/transactions",
        tags: ["payments"],
        summary: "An agent's settlements, newest first",
        errorResponses: [400],
      },
    })
    .input(ZListAgentTransactionsRequest)
    .output(ZListAgentTransactionsResponse)
    .query(({ input }): Promise<TListAgentTransactionsResponse> => listAgentTransactions(deps, input));
