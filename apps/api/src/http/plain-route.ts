/**
 * Routes that are plain Express handlers (DESIGN.md §2: special statuses such as 202 and 402, and headers
 * such as Idempotency-Key), still described in the OpenAPI document through `openapi`.
 */
import type { Express } from "express";
import type { Deps } from "../deps";

export interface PlainRoute {
  method: "get" | "post";
  path: string;
  /** The OpenAPI operation object for this method and path. */
  openapi: Record<string, unknown>;
  register(app: Express, deps: Deps): void;
}
