/** CSV for operator exports: the shared writer (../../http/csv-export.ts) under the module's own name. */
export { csvCell, toCsv } from "../../http/csv-export";
