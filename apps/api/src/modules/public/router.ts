/**
 * The public module (SPEC §2.8, §4.2; docs/registry.md, docs/partners.md): payment capabilities, the splitter
 * registry and its coverage, the best route, agent onboarding, an agent's settlements, and partners. Published under
 * the tRPC namespaces `partner`, `agent` and `admin`.
 */
import { bindEndpoints } from "../../http/bind-endpoint";
import { agentsRegisterEndpoint } from "./agents-register";
import type { PublicDeps } from "./deps";
import { getPartnerProcedure } from "./get-partner";
import { listAgentTransactionsProcedure } from "./list-agent-transactions";
import { paymentCapabilitiesEndpoint } from "./payment-capabilities";
import { adminRegisterPartnerProcedure } from "./register-partner";
import { registryEndpointList } from "./registry";
import { registryBestEndpoint } from "./registry-best";
import { createRegistrySnapshots } from "./snapshot";

export function publicModule(deps: PublicDeps) {
  const withSnapshot = { ...deps, snapshot: createRegistrySnapshots(deps) };
  return {
    getPartner: getPartnerProcedure(deps),
    registerPartner: adminRegisterPartnerProcedure(deps),
    agentTransactions: listAgentTransactionsProcedure(deps),
    endpoints: bindEndpoints(withSnapshot, deps.log, [
      paymentCapabilitiesEndpoint,
      ...registryEndpointList,
      registryBestEndpoint,
      agentsRegisterEndpoint,
    ]),
  };
}
