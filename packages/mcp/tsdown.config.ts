/** Publish build (scripts/tsdown-publish.ts): the library, and dist/bin.js, the executable. */
import { publishBuild } from "../../scripts/tsdown-publish";

export default publishBuild({ index: "src/index.ts", bin: "src/bin.ts" });
