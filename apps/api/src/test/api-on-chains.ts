/**
 * The setup most route suites share: real local chains and one API over a data directory of their own, started
 * before the suite and stopped after it. Call it inside a `describe`; read `api` and `chains` inside tests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseKind } from "@tollgate/db";
import type { LocalNetworkName } from "@tollgate/shared";
import { afterAll, beforeAll } from "vitest";
import { type LocalChains, startTestChains } from "./chains";
import { startTestApi, type TestApi } from "./harness";

export interface ApiOnChains {
  readonly dataDir: string;
  readonly api: TestApi;
  readonly chains: LocalChains;
}

export function useApiOnChains(
  kind: DatabaseKind,
  options: { prefix: string; networks?: LocalNetworkName[]; env?: Record<string, string> },
): ApiOnChains {
  const dataDir = mkdtempSync(join(tmpdir(), `tollgate-${options.prefix}-`));
  let api: TestApi | undefined;
  let chains: LocalChains | undefined;

  beforeAll(async () => {
    chains = await startTestChains(dataDir, options.networks ?? ["amoy"]);
    api = await startTestApi(kind, { DATA_DIR: dataDir, ...options.env });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await chains?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is read before the suite started it`);
    return value;
  };
  return {
    dataDir,
    get api() {
      return started(api, "api");
    },
    get chains() {
      return started(chains, "chains");
    },
  };
}
