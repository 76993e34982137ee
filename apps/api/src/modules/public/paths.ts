/** Public paths the registry surfaces name; the route files register exactly these. */
export const CAPABILITIES_PATH = "/api/payment-capabilities";
export const REGISTRY_PATH = "/api/registry";
export const REGISTRY_ALIAS_PATH = "/registry";
export const REGISTRY_COVERAGE_PATH = "/api/registry/coverage";
export const REGISTRY_COVERAGE_ALIAS_PATH = "/registry/coverage";
export const REGISTRY_BEST_PATH = "/api/registry/best";
export const AGENTS_REGISTER_PATH = "/api/agents/register";
export const AGENT_TRANSACTIONS_PATH = "/v1/agents/{address}/transactions";
export const QUOTE_FLOW = "POST /v1/quote, send settlement_call, POST /v1/pay";
/** Public registry answers are cached this long (server and Cache-Control); readiness itself is cached 15 s. */
export const REGISTRY_CACHE_SECONDS = 10;
