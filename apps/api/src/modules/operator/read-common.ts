/**
 * What the operator reads share (SPEC §4.3): their dependencies. Cursors and filters live in http/list-query.ts,
 * settlement views in the chains module.
 */
import type { Database } from "@tollgate/db";
import type { ChainRegistry } from "../chains";

export interface AdminReadDeps {
  db: { db: Database };
  chains: ChainRegistry;
  clock: { now(): Date };
}
