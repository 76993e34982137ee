#!/usr/bin/env node
/**
 * The `tollgate-mcp` executable (docs/mcp.md). In the published package this file is compiled to dist/bin.js;
 * in the repo bin/tollgate-mcp.js runs src/main.ts through tsx.
 */
import "./main";
