#!/usr/bin/env node
// Runs src/main.ts in this process through tsx (the repo's runtime; there is no build step). One process, so
// an MCP client's stdio pipes reach the server directly.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
