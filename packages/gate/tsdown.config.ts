/** Publish build (scripts/tsdown-publish.ts): the middleware and its test helpers. */
import { publishBuild } from "../../scripts/tsdown-publish";

export default publishBuild({ index: "src/index.ts", testing: "src/testing.ts" });
