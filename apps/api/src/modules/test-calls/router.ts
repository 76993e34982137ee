/**
 * The test-calls module (decision 0075): the console's "Run a test paid call" for test-mode merchants on local
 * chains. Published under the tRPC namespace `testCall`.
 */
import type { TestCallsDeps } from "./deps";
import { getTestPaidCallProcedure } from "./get-test-paid-call";
import { runTestPaidCallProcedure } from "./run-test-paid-call";
import { createTestPaidCallRunner } from "./test-paid-call-service";

export function testCallsModule(deps: TestCallsDeps) {
  const runner = createTestPaidCallRunner(deps);
  return {
    procedures: {
      availability: getTestPaidCallProcedure(deps),
      run: runTestPaidCallProcedure(deps, runner),
    },
  };
}
