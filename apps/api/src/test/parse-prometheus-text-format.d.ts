/** Types of the test-only Prometheus text parser (the package ships none). */
declare module "parse-prometheus-text-format" {
  export interface ParsedFamily {
    name: string;
    help: string;
    type: "GAUGE" | "COUNTER" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
