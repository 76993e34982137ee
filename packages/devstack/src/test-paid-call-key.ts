/**
 * `pnpm start` turns the console's "Run a test paid call" on (decision 0075): the API pays with the public Hardhat
 * demo key (account #9, the key `pnpm demo` pays with), funded only on the local chains.
 */

/** Hardhat development account #9: a public, well-known key, funded only on local chains. */
export const DEMO_AGENT_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

/**
 * The environment the dev stack parses: the caller's, with TEST_PAID_CALL_PRIVATE_KEY defaulting to the demo key.
 * An explicit value wins (an empty one turns the feature off); with NODE_ENV=production nothing is added, so the
 * API's production guard never meets a key the caller did not set.
 */
export function withTestPaidCallKey(source: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (source.NODE_ENV === "production" || source.TEST_PAID_CALL_PRIVATE_KEY !== undefined) return source;
  return { ...source, TEST_PAID_CALL_PRIVATE_KEY: DEMO_AGENT_KEY };
}
