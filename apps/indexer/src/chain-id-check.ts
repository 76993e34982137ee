/**
 * The indexer's start-up check (docs/decisions/0055-chain-checks-and-readiness.md): each network's RPC answers
 * `eth_chainId` with the manifest's chain id. In production a mismatch or an unreachable RPC refuses to start with
 * the same one line as the API; in development and tests a mismatched network is left out (following another chain
 * would write its logs as this one's) and an unreachable one is followed anyway (the follower retries).
 */
import {
  chainIdProblem,
  networkProblemLine,
  StartupRefusal,
  shortErrorText,
} from "@tollgate/shared/startup-check";
import type { Logger } from "pino";
import type { NetworkConfig } from "./config";
import type { RpcRequest } from "./rpc/rpc";

export async function checkChainIds(
  networks: NetworkConfig[],
  options: { production: boolean; log: Pick<Logger, "warn">; requestFor: (cfg: NetworkConfig) => RpcRequest },
): Promise<NetworkConfig[]> {
  const results = await Promise.all(
    networks.map(async (cfg) => {
      try {
        const found = Number(BigInt((await options.requestFor(cfg)({ method: "eth_chainId" })) as string));
        const problem = chainIdProblem(found, cfg.chainId);
        return { cfg, problem, mismatch: problem !== undefined };
      } catch (error) {
        return { cfg, problem: `RPC unreachable: ${shortErrorText(error)}`, mismatch: false };
      }
    }),
  );
  const problems = results.flatMap(({ cfg, problem }) =>
    problem ? [networkProblemLine(cfg.network, problem, cfg.rpcUrl)] : [],
  );
  if (problems.length > 0 && options.production)
    throw new StartupRefusal(`refusing to start: ${problems.join("; ")}`);
  for (const problem of problems) options.log.warn(problem);
  return results.filter(({ mismatch }) => !mismatch).map(({ cfg }) => cfg);
}
